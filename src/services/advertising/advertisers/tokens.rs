//! Single-use tokens mailed to advertisers. The mail carries the token; the table keeps its
//! SHA-256 (a high-entropy token needs no slow hash), so a read of the table opens nothing.
//! Using one is a conditional update (unused and unexpired), so two uses at once succeed once.

use super::super::error::Result;
use super::domain::invalid_token;
use crate::core::secrets::{random_token, sha256_hex};
use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};
use switchboard_entities::advertising::advertiser_token;
use uuid::Uuid;

/// What a token is for, and how long it lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// Proves the address (24 hours).
    VerifyEmail,
    /// Sets a new password (1 hour).
    ResetPassword,
}

impl Purpose {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::VerifyEmail => "verify_email",
            Self::ResetPassword => "reset_password",
        }
    }

    pub fn ttl(self) -> Duration {
        match self {
            Self::VerifyEmail => Duration::hours(24),
            Self::ResetPassword => Duration::hours(1),
        }
    }
}

/// A fresh token for `advertiser`; answers the token itself (only the mail holds it).
pub async fn issue(
    db: &impl ConnectionTrait,
    advertiser: Uuid,
    purpose: Purpose,
    now: DateTime<Utc>,
) -> Result<String> {
    let token = random_token(32);
    advertiser_token::ActiveModel {
        id: Set(Uuid::new_v4()),
        advertiser_id: Set(advertiser),
        purpose: Set(purpose.as_str().into()),
        token_hash: Set(sha256_hex(token.as_bytes())),
        expires_at: Set(now + purpose.ttl()),
        used_at: Set(None),
        created_at: Set(now),
    }
    .insert(db)
    .await?;
    Ok(token)
}

/// Uses `token` for `purpose`: answers its advertiser, once; an unknown, used or expired
/// token is refused. Every other token of that purpose goes with it (one link works).
pub async fn consume(
    db: &impl ConnectionTrait,
    token: &str,
    purpose: Purpose,
    now: DateTime<Utc>,
) -> Result<Uuid> {
    let hash = sha256_hex(token.trim().as_bytes());
    let Some(row) = advertiser_token::Entity::find()
        .filter(advertiser_token::Column::TokenHash.eq(hash))
        .filter(advertiser_token::Column::Purpose.eq(purpose.as_str()))
        .one(db)
        .await?
    else {
        return Err(invalid_token());
    };
    let used = advertiser_token::Entity::update_many()
        .col_expr(advertiser_token::Column::UsedAt, Expr::value(now))
        .filter(advertiser_token::Column::Id.eq(row.id))
        .filter(advertiser_token::Column::UsedAt.is_null())
        .filter(advertiser_token::Column::ExpiresAt.gt(now))
        .exec(db)
        .await?;
    if used.rows_affected != 1 {
        return Err(invalid_token());
    }
    end_all(db, row.advertiser_id, purpose, now).await?;
    Ok(row.advertiser_id)
}

/// Ends every unused token of `purpose` the advertiser holds.
pub async fn end_all(
    db: &impl ConnectionTrait,
    advertiser: Uuid,
    purpose: Purpose,
    now: DateTime<Utc>,
) -> Result<()> {
    advertiser_token::Entity::update_many()
        .col_expr(advertiser_token::Column::UsedAt, Expr::value(now))
        .filter(advertiser_token::Column::AdvertiserId.eq(advertiser))
        .filter(advertiser_token::Column::Purpose.eq(purpose.as_str()))
        .filter(advertiser_token::Column::UsedAt.is_null())
        .exec(db)
        .await?;
    Ok(())
}
