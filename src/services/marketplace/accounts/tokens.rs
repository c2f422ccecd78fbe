//! Access JWTs carry the user's role and their refresh family; refresh tokens are opaque,
//! stored hashed, valid 30 days from issue. By default (the spec) a refresh token is used
//! again and again until it expires, the login is ended by logout or a password reset;
//! with `rotate_refresh_tokens` each refresh rotates the token, and presenting a rotated one
//! again (a stolen copy, or the thief's) revokes its whole family. A family is
//! the session an access token names: it is live while one of its tokens is not revoked,
//! and the role that counts is the account's now ([`Source`], asked through
//! `core::session`).

use crate::core::error::ApiError;
use crate::core::refresh::{rotate_once, RotationColumns};
use crate::core::secrets::{random_token, sha256_hex};
use crate::core::session::{Change, EndReason, Live, SessionKey, SessionSource};
use crate::services::marketplace::accounts::domain::role;
use crate::services::marketplace::error::{MarketplaceError, Result};
use crate::services::marketplace::state::MarketplaceState;
use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::{Condition, Expr};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait, QueryFilter,
    QuerySelect, Set,
};
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

/// Every session of the user ends (after a password reset); the caller announces
/// `Change::AccountEnded` once this has committed.
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

/// Ends one login: every token of the family is revoked, and its sockets are told.
pub async fn logout(st: &MarketplaceState, key: SessionKey) -> Result<()> {
    revoke_family(&st.core.db, key.session, st.core.now()).await?;
    st.sessions
        .changed(Change::SessionEnded {
            key,
            reason: EndReason::LoggedOut,
        })
        .await;
    Ok(())
}

/// A fresh access token (with the user's current role) for `token`; with rotation on, also
/// a fresh refresh token in place of `token`, otherwise `token` itself again.
pub async fn refresh(st: &MarketplaceState, token: &str) -> Result<Issued> {
    let now = st.core.now();
    let row = refresh_token::Entity::find()
        .filter(refresh_token::Column::TokenHash.eq(sha256_hex(token.as_bytes())))
        .one(&st.core.db)
        .await?
        .ok_or(MarketplaceError::InvalidRefreshToken)?;
    if row.revoked_at.is_some() || row.expires_at <= now {
        return Err(MarketplaceError::InvalidRefreshToken.into());
    }
    // A token rotated away (while rotation was on) stays spent even after it is turned off.
    if row.rotated_at.is_some() {
        reused(st, &row, now).await?;
        return Err(MarketplaceError::InvalidRefreshToken.into());
    }
    if !st.cfg.rotate_refresh_tokens {
        let u = user::Entity::find_by_id(row.user_id)
            .one(&st.core.db)
            .await?
            .ok_or(MarketplaceError::InvalidRefreshToken)?;
        return Ok(Issued {
            access: access(st, &u, row.family_id, now)?,
            refresh: token.to_owned(),
        });
    }
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let columns = RotationColumns {
        id: refresh_token::Column::Id,
        rotated_at: refresh_token::Column::RotatedAt,
    };
    let live = Condition::all().add(refresh_token::Column::RevokedAt.is_null());
    if !rotate_once::<refresh_token::Entity>(&txn, columns, row.id, live, now).await? {
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

/// A rotated token came back: its whole family is revoked (whoever holds the live one, the
/// owner or a thief, signs in again).
async fn reused(
    st: &MarketplaceState,
    row: &refresh_token::Model,
    now: DateTime<Utc>,
) -> Result<()> {
    revoke_family(&st.core.db, row.family_id, now).await?;
    st.sessions
        .changed(Change::SessionEnded {
            key: SessionKey {
                account: row.user_id,
                session: row.family_id,
            },
            reason: EndReason::RefreshTokenReused,
        })
        .await;
    tracing::warn!(family = %row.family_id, "rotated refresh token reused; family revoked");
    Ok(())
}

/// The marketplace's sessions: a refresh family with a token not revoked, of an account
/// that exists. The account snapshot is the user row (its role, for every role check, and
/// `GET /auth/me`).
pub struct Source(pub DatabaseConnection);

#[async_trait]
impl SessionSource for Source {
    async fn load(&self, key: SessionKey) -> Result<Option<Live>, ApiError> {
        let open = refresh_token::Entity::find()
            .select_only()
            .column(refresh_token::Column::Id)
            .filter(refresh_token::Column::FamilyId.eq(key.session))
            .filter(refresh_token::Column::UserId.eq(key.account))
            .filter(refresh_token::Column::RevokedAt.is_null())
            .into_tuple::<Uuid>()
            .one(&self.0)
            .await?
            .is_some();
        if !open {
            return Ok(None);
        }
        let u = user::Entity::find_by_id(key.account).one(&self.0).await?;
        Ok(u.map(|u| {
            let roles = vec![role(&u.role)];
            Live::new(u, roles)
        }))
    }
}
