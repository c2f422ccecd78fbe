//! Access JWTs carry the user's role and their refresh family; refresh tokens are opaque,
//! stored hashed, valid 30 days, single use: each refresh rotates the token, and presenting
//! a rotated one again (a stolen copy, or the thief's) revokes its whole family.

use super::super::domain::role;
use super::super::error::{MarketplaceError, Result};
use super::super::MarketplaceState;
use crate::core::secrets::{random_token, sha256_hex};
use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};
use switchboard_entities::marketplace::{refresh_token, user};
use uuid::Uuid;

/// The token type of marketplace access JWTs (other services' tokens are refused).
pub const ACCESS_TOKEN_TYPE: &str = "marketplace_access";

pub struct Issued {
    pub access: String,
    pub refresh: String,
}

fn access(
    st: &MarketplaceState,
    u: &user::Model,
    family: Uuid,
    now: DateTime<Utc>,
) -> Result<String> {
    Ok(st.core.jwt.issue_with_roles(
        ACCESS_TOKEN_TYPE,
        &u.id.to_string(),
        Some(&family.to_string()),
        &[role(&u.role)],
        now,
        st.cfg.access_ttl_secs,
    )?)
}

async fn store_refresh(
    st: &MarketplaceState,
    db: &impl ConnectionTrait,
    user_id: Uuid,
    family: Uuid,
    now: DateTime<Utc>,
) -> Result<String> {
    let token = random_token(32);
    refresh_token::ActiveModel {
        id: Set(Uuid::new_v4()),
        user_id: Set(user_id),
        family_id: Set(family),
        token_hash: Set(sha256_hex(token.as_bytes())),
        expires_at: Set(now + Duration::days(st.cfg.refresh_ttl_days)),
        created_at: Set(now),
        rotated_at: Set(None),
        revoked_at: Set(None),
    }
    .insert(db)
    .await?;
    Ok(token)
}

/// A new login: a new refresh family.
pub async fn issue(st: &MarketplaceState, u: &user::Model) -> Result<Issued> {
    let now = st.core.now();
    let family = Uuid::new_v4();
    let refresh = store_refresh(st, &st.core.db, u.id, family, now).await?;
    Ok(Issued {
        access: access(st, u, family, now)?,
        refresh,
    })
}

async fn revoke_family(db: &impl ConnectionTrait, family: Uuid, now: DateTime<Utc>) -> Result<()> {
    refresh_token::Entity::update_many()
        .col_expr(refresh_token::Column::RevokedAt, Expr::value(now))
        .filter(refresh_token::Column::FamilyId.eq(family))
        .filter(refresh_token::Column::RevokedAt.is_null())
        .exec(db)
        .await?;
    Ok(())
}

/// Every session of the user ends (after a password reset).
pub async fn revoke_all(
    db: &impl ConnectionTrait,
    user_id: Uuid,
    now: DateTime<Utc>,
) -> Result<()> {
    refresh_token::Entity::update_many()
        .col_expr(refresh_token::Column::RevokedAt, Expr::value(now))
        .filter(refresh_token::Column::UserId.eq(user_id))
        .filter(refresh_token::Column::RevokedAt.is_null())
        .exec(db)
        .await?;
    Ok(())
}

/// Rotates `token`: a fresh access token (with the user's current role) and refresh token.
pub async fn refresh(st: &MarketplaceState, token: &str) -> Result<Issued> {
    let now = st.core.now();
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let row = refresh_token::Entity::find()
        .filter(refresh_token::Column::TokenHash.eq(sha256_hex(token.as_bytes())))
        .one(&txn)
        .await?
        .ok_or(MarketplaceError::InvalidRefreshToken)?;
    if row.revoked_at.is_some() || row.expires_at <= now {
        return Err(MarketplaceError::InvalidRefreshToken.into());
    }
    if row.rotated_at.is_some() {
        revoke_family(&txn, row.family_id, now).await?;
        txn.commit().await?;
        tracing::warn!(family = %row.family_id, "rotated refresh token reused; family revoked");
        return Err(MarketplaceError::InvalidRefreshToken.into());
    }
    let rotated = refresh_token::Entity::update_many()
        .col_expr(refresh_token::Column::RotatedAt, Expr::value(now))
        .filter(refresh_token::Column::Id.eq(row.id))
        .filter(refresh_token::Column::RotatedAt.is_null())
        .exec(&txn)
        .await?;
    if rotated.rows_affected != 1 {
        return Err(MarketplaceError::InvalidRefreshToken.into());
    }
    let u = user::Entity::find_by_id(row.user_id)
        .one(&txn)
        .await?
        .ok_or(MarketplaceError::InvalidRefreshToken)?;
    let refresh = store_refresh(st, &txn, u.id, row.family_id, now).await?;
    txn.commit().await?;
    Ok(Issued {
        access: access(st, &u, row.family_id, now)?,
        refresh,
    })
}
