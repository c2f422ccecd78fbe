//! The built-in KYC provider: a single-use verification page on this service. Opening it
//! shows the form; submitting it marks the account verified (level `standard`, `id_card`).

use super::super::error::Result;
use super::super::state::IdentityState;
use super::dto::KycStatus;
use crate::core::error::ApiError;
use crate::core::secrets::{random_token, sha256_hex};
use crate::core::session::Change;
use crate::providers::kyc::{KycProvider, KycStart};
use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set};
use switchboard_entities::identity::{kyc_verification, user};
use uuid::Uuid;

pub const LEVEL: &str = "standard";
pub const DOCUMENTS: [&str; 1] = ["id_card"];

pub struct BuiltinKyc<'a> {
    pub st: &'a IdentityState,
}

#[async_trait]
impl KycProvider for BuiltinKyc<'_> {
    type Error = ApiError;

    async fn start(&self, user_id: Uuid, now: DateTime<Utc>) -> Result<KycStart> {
        let token = random_token(32);
        let expires_at = now + Duration::seconds(self.st.cfg.kyc_url_ttl_secs);
        kyc_verification::ActiveModel {
            id: Set(Uuid::new_v4()),
            user_id: Set(user_id),
            token_hash: Set(sha256_hex(token.as_bytes())),
            expires_at: Set(expires_at),
            completed_at: Set(None),
            created_at: Set(now),
        }
        .insert(&self.st.core.db)
        .await?;
        let base = self.st.cfg.public_url.trim_end_matches('/');
        Ok(KycStart {
            verification_url: format!("{base}/kyc/verify/{token}"),
            expires_at,
        })
    }
}

pub async fn status(st: &IdentityState, u: &user::Model) -> Result<KycStatus> {
    if u.kyc_status == user::KycStatus::Verified {
        let documents = u
            .kyc_documents
            .as_ref()
            .and_then(|d| serde_json::from_value::<Vec<String>>(d.clone()).ok())
            .unwrap_or_default();
        return Ok(KycStatus {
            status: u.kyc_status.to_string(),
            verified_at: u.kyc_verified_at,
            level: u.kyc_level.clone(),
            documents,
        });
    }
    let open = kyc_verification::Entity::find()
        .filter(kyc_verification::Column::UserId.eq(u.id))
        .filter(kyc_verification::Column::CompletedAt.is_null())
        .filter(kyc_verification::Column::ExpiresAt.gt(st.core.now()))
        .one(&st.core.db)
        .await?;
    Ok(KycStatus {
        status: if open.is_some() {
            user::KycStatus::Pending
        } else {
            user::KycStatus::NotStarted
        }
        .to_string(),
        verified_at: None,
        level: None,
        documents: vec![],
    })
}

/// An open verification for a page token, when it is still valid.
pub async fn open_verification(
    st: &IdentityState,
    token: &str,
) -> Result<Option<kyc_verification::Model>> {
    let now = st.core.now();
    Ok(kyc_verification::Entity::find()
        .filter(kyc_verification::Column::TokenHash.eq(sha256_hex(token.as_bytes())))
        .one(&st.core.db)
        .await?
        .filter(|v| v.completed_at.is_none() && v.expires_at > now))
}

/// Completes the verification behind `token`; false when it is unknown, used or expired.
pub async fn complete(st: &IdentityState, token: &str) -> Result<bool> {
    let Some(v) = open_verification(st, token).await? else {
        return Ok(false);
    };
    let now = st.core.now();
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let done = kyc_verification::Entity::update_many()
        .col_expr(kyc_verification::Column::CompletedAt, Expr::value(now))
        .filter(kyc_verification::Column::Id.eq(v.id))
        .filter(kyc_verification::Column::CompletedAt.is_null())
        .exec(&txn)
        .await?;
    if done.rows_affected != 1 {
        txn.rollback().await?;
        return Ok(false);
    }
    user::Entity::update_many()
        .col_expr(
            user::Column::KycStatus,
            Expr::value(user::KycStatus::Verified),
        )
        .col_expr(user::Column::KycLevel, Expr::value(LEVEL))
        .col_expr(
            user::Column::KycDocuments,
            Expr::value(serde_json::json!(DOCUMENTS)),
        )
        .col_expr(user::Column::KycVerifiedAt, Expr::value(now))
        .col_expr(user::Column::UpdatedAt, Expr::value(now))
        .filter(user::Column::Id.eq(v.user_id))
        .filter(user::Column::DeletedAt.is_null())
        .exec(&txn)
        .await?;
    txn.commit().await?;
    st.sessions
        .changed(Change::AccountChanged { account: v.user_id })
        .await;
    Ok(true)
}
