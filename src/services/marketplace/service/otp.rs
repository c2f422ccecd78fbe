//! One-time codes: six digits sent through the SMS port, stored as HMAC digests bound to
//! phone and purpose, expiring, attempt-limited and consumed once. A new code supersedes
//! the earlier ones of the same phone and purpose.

use super::super::domain::OtpPurpose;
use super::super::error::{MarketplaceError, Result};
use super::super::MarketplaceState;
use crate::core::error::ApiError;
use crate::core::phone::PhoneNumber;
use crate::core::secrets::{constant_time_eq, hmac_sha256_hex, random_digits};
use crate::providers::sms::SmsMessage;
use chrono::Duration;
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, Set};
use switchboard_entities::marketplace::otp_code;
use uuid::Uuid;

fn digest(st: &MarketplaceState, phone: &PhoneNumber, purpose: OtpPurpose, code: &str) -> String {
    let input = format!("{}|{}|{}", phone.as_str(), purpose.as_str(), code);
    hmac_sha256_hex(&st.otp_key(), input.as_bytes())
}

/// Stores a fresh code (retiring earlier ones) and sends it.
pub async fn send(st: &MarketplaceState, phone: &PhoneNumber, purpose: OtpPurpose) -> Result<()> {
    let now = st.core.now();
    let ttl = st.cfg.otp_ttl_secs;
    let code = random_digits(6);
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    otp_code::Entity::update_many()
        .col_expr(otp_code::Column::ConsumedAt, Expr::value(now))
        .filter(otp_code::Column::Phone.eq(phone.as_str()))
        .filter(otp_code::Column::Purpose.eq(purpose.as_str()))
        .filter(otp_code::Column::ConsumedAt.is_null())
        .exec(&txn)
        .await?;
    otp_code::ActiveModel {
        id: Set(Uuid::new_v4()),
        phone: Set(phone.as_str().to_owned()),
        purpose: Set(purpose.as_str().to_owned()),
        code_hash: Set(digest(st, phone, purpose, &code)),
        attempts: Set(0),
        expires_at: Set(now + Duration::seconds(ttl)),
        consumed_at: Set(None),
        created_at: Set(now),
    }
    .insert(&txn)
    .await?;
    txn.commit().await?;
    let body = format!(
        "Your car marketplace code is {code}. It expires in {} minutes. Never share it.",
        ttl / 60
    );
    st.providers
        .sms
        .send(&SmsMessage {
            to: phone.as_str(),
            body: &body,
            service: "marketplace",
            status_callback: None,
        })
        .await
        .map_err(ApiError::internal)?;
    Ok(())
}

/// Consumes the phone's live code of `purpose` when `code` matches it. A wrong code costs an
/// attempt; the last allowed attempt burns the code.
pub async fn verify(
    st: &MarketplaceState,
    phone: &PhoneNumber,
    purpose: OtpPurpose,
    code: &str,
) -> Result<()> {
    let db = &st.core.db;
    let now = st.core.now();
    let max = Ord::max(st.cfg.otp_max_attempts, 1);
    let Some(row) = otp_code::Entity::find()
        .filter(otp_code::Column::Phone.eq(phone.as_str()))
        .filter(otp_code::Column::Purpose.eq(purpose.as_str()))
        .filter(otp_code::Column::ConsumedAt.is_null())
        .order_by_desc(otp_code::Column::CreatedAt)
        .one(db)
        .await?
    else {
        return Err(MarketplaceError::InvalidOtp {
            attempts_remaining: 0,
        }
        .into());
    };
    if row.expires_at <= now {
        return Err(MarketplaceError::OtpExpired.into());
    }
    let expected = digest(st, phone, purpose, code.trim());
    let matches = constant_time_eq(expected.as_bytes(), row.code_hash.as_bytes());
    // Conditional updates: two concurrent guesses cannot both use the last attempt, and a
    // right code is consumed once.
    let live = otp_code::Column::ConsumedAt
        .is_null()
        .and(otp_code::Column::Attempts.lt(max));
    if matches {
        let done = otp_code::Entity::update_many()
            .col_expr(otp_code::Column::ConsumedAt, Expr::value(now))
            .filter(otp_code::Column::Id.eq(row.id))
            .filter(live)
            .exec(db)
            .await?;
        if done.rows_affected == 1 {
            return Ok(());
        }
        return Err(MarketplaceError::InvalidOtp {
            attempts_remaining: 0,
        }
        .into());
    }
    let attempts = row.attempts + 1;
    let burnt = attempts >= max;
    let mut update = otp_code::Entity::update_many()
        .col_expr(
            otp_code::Column::Attempts,
            Expr::col(otp_code::Column::Attempts).add(1),
        )
        .filter(otp_code::Column::Id.eq(row.id))
        .filter(live);
    if burnt {
        update = update.col_expr(otp_code::Column::ConsumedAt, Expr::value(now));
    }
    update.exec(db).await?;
    Err(MarketplaceError::InvalidOtp {
        attempts_remaining: Ord::max(max - attempts, 0),
    }
    .into())
}
