//! One-time codes: sent by SMS, stored as HMAC digests, bound to phone and purpose, attempt
//! limited, consumed atomically; a verified code yields a single-use temp token.

use super::super::domain::OtpPurpose;
use super::super::dto::{OtpSent, OtpVerified};
use super::super::error::{IdentityError, Result};
use super::super::IdentityState;
use super::{any_user_by_phone, live_user_by_phone};
use crate::core::error::ApiError;
use crate::core::phone::PhoneNumber;
use crate::core::secrets::{
    constant_time_eq, hmac_sha256_hex, random_digits, random_token, sha256_hex,
};
use crate::providers::sms::SmsMessage;
use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect, Set,
};
use switchboard_entities::identity::{otp_code, otp_failure, temp_token};
use uuid::Uuid;

/// The rolling window of the per-phone cap on wrong codes.
pub const OTP_FAILURE_WINDOW: Duration = Duration::hours(24);

fn digest(st: &IdentityState, phone: &PhoneNumber, purpose: OtpPurpose, code: &str) -> String {
    let input = format!("{}|{}|{}", phone.as_str(), purpose.as_str(), code);
    hmac_sha256_hex(&st.otp_key(), input.as_bytes())
}

pub async fn send(st: &IdentityState, phone: &PhoneNumber, purpose: OtpPurpose) -> Result<OtpSent> {
    let db = &st.core.db;
    match purpose {
        OtpPurpose::Signup if any_user_by_phone(db, phone).await?.is_some() => {
            return Err(IdentityError::PhoneExists.into())
        }
        OtpPurpose::PinReset if live_user_by_phone(db, phone).await?.is_none() => {
            return Err(IdentityError::PhoneNotFound.into())
        }
        _ => {}
    }
    let now = st.core.now();
    let ttl = st.cfg.otp_ttl_secs;
    let code = random_digits(6);
    let txn = crate::core::db::begin_write(db).await?;
    // A new code supersedes every earlier one for the same phone and purpose.
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
        "Your Switchboard code is {code}. It expires in {} minutes. Never share it.",
        ttl / 60
    );
    st.providers
        .sms
        .send(&SmsMessage {
            to: phone.as_str(),
            body: &body,
            service: "identity",
            status_callback: None,
        })
        .await
        .map_err(ApiError::internal)?;
    Ok(OtpSent {
        expires_in: ttl,
        message: format!("Verification code sent to {}", phone.masked()),
    })
}

pub async fn verify(
    st: &IdentityState,
    phone: &PhoneNumber,
    purpose: OtpPurpose,
    code: &str,
) -> Result<OtpVerified> {
    let db = &st.core.db;
    let now = st.core.now();
    let Some(row) = otp_code::Entity::find()
        .filter(otp_code::Column::Phone.eq(phone.as_str()))
        .filter(otp_code::Column::Purpose.eq(purpose.as_str()))
        .filter(otp_code::Column::ConsumedAt.is_null())
        .order_by_desc(otp_code::Column::CreatedAt)
        .one(db)
        .await?
    else {
        return Err(IdentityError::InvalidOtp {
            attempts_remaining: 0,
        }
        .into());
    };
    if row.expires_at <= now {
        return Err(IdentityError::OtpExpired.into());
    }
    let slot = reserve_daily_attempt(st, phone, now).await?;
    let checked = check_code(st, &row, phone, purpose, code, now).await;
    if !matches!(checked, Ok(Err(_))) {
        // Only a wrong code counts against the phone's daily cap.
        otp_failure::Entity::delete_by_id(slot).exec(db).await?;
    }
    if let Err(attempts_remaining) = checked? {
        return Err(IdentityError::InvalidOtp { attempts_remaining }.into());
    }
    let token = random_token(32);
    let ttl = st.cfg.temp_token_ttl_secs;
    temp_token::ActiveModel {
        id: Set(Uuid::new_v4()),
        token_hash: Set(sha256_hex(token.as_bytes())),
        phone: Set(phone.as_str().to_owned()),
        purpose: Set(purpose.as_str().to_owned()),
        expires_at: Set(now + Duration::seconds(ttl)),
        used_at: Set(None),
        created_at: Set(now),
    }
    .insert(db)
    .await?;
    Ok(OtpVerified {
        verified: true,
        temp_token: token,
        expires_in: ttl,
    })
}

/// Counts this attempt against the phone's rolling 24-hour cap of wrong codes before the code
/// is compared: the row is written first, so of parallel guesses the later writer always sees
/// the earlier one and no more than the cap get through. A refused attempt does not count.
/// Returns the row to delete if the code turns out right.
async fn reserve_daily_attempt(
    st: &IdentityState,
    phone: &PhoneNumber,
    now: DateTime<Utc>,
) -> Result<Uuid> {
    let db = &st.core.db;
    let id = Uuid::new_v4();
    otp_failure::ActiveModel {
        id: Set(id),
        phone: Set(phone.as_str().to_owned()),
        failed_at: Set(now),
    }
    .insert(db)
    .await?;
    let cap = usize::try_from(std::cmp::max(st.cfg.otp_failed_per_day, 1)).unwrap_or(usize::MAX);
    let counted = failures_since(db, phone, now - OTP_FAILURE_WINDOW).await?;
    if counted.len() <= cap {
        return Ok(id);
    }
    otp_failure::Entity::delete_by_id(id).exec(db).await?;
    let others = failures_since(db, phone, now - OTP_FAILURE_WINDOW).await?;
    // The lock lifts once fewer than `cap` failures are younger than the window.
    let locked_until = others
        .len()
        .checked_sub(cap)
        .and_then(|i| others.get(i))
        .map_or(now, |t| *t + OTP_FAILURE_WINDOW);
    Err(IdentityError::OtpLocked {
        locked_until,
        retry_after: std::cmp::max((locked_until - now).num_seconds(), 1),
    }
    .into())
}

/// When the phone's wrong codes inside the window were entered, oldest first.
async fn failures_since(
    db: &impl ConnectionTrait,
    phone: &PhoneNumber,
    since: DateTime<Utc>,
) -> Result<Vec<DateTime<Utc>>> {
    Ok(otp_failure::Entity::find()
        .select_only()
        .column(otp_failure::Column::FailedAt)
        .filter(otp_failure::Column::Phone.eq(phone.as_str()))
        .filter(otp_failure::Column::FailedAt.gt(since))
        .order_by_asc(otp_failure::Column::FailedAt)
        .into_tuple()
        .all(db)
        .await?)
}

/// Counts the attempt on the code and compares it. `Ok(Err(remaining))` is a wrong code;
/// `Err` refuses the attempt for another reason (attempts used up, consumed meanwhile).
async fn check_code(
    st: &IdentityState,
    row: &otp_code::Model,
    phone: &PhoneNumber,
    purpose: OtpPurpose,
    code: &str,
    now: DateTime<Utc>,
) -> Result<std::result::Result<(), i32>> {
    let db = &st.core.db;
    let max = st.cfg.otp_max_attempts;
    // Count the attempt first, atomically, so parallel guesses cannot exceed the limit.
    let counted = otp_code::Entity::update_many()
        .col_expr(
            otp_code::Column::Attempts,
            Expr::col(otp_code::Column::Attempts).add(1),
        )
        .filter(otp_code::Column::Id.eq(row.id))
        .filter(otp_code::Column::Attempts.lt(max))
        .filter(otp_code::Column::ConsumedAt.is_null())
        .exec(db)
        .await?;
    if counted.rows_affected == 0 {
        return Err(if row.attempts >= max {
            IdentityError::TooManyAttempts.into()
        } else {
            IdentityError::InvalidOtp {
                attempts_remaining: 0,
            }
            .into()
        });
    }
    let expected = digest(st, phone, purpose, code.trim());
    if !constant_time_eq(expected.as_bytes(), row.code_hash.as_bytes()) {
        let used = otp_code::Entity::find_by_id(row.id)
            .one(db)
            .await?
            .map_or(max, |r| r.attempts);
        return Ok(Err(std::cmp::max(max - used, 0)));
    }
    let consumed = otp_code::Entity::update_many()
        .col_expr(otp_code::Column::ConsumedAt, Expr::value(now))
        .filter(otp_code::Column::Id.eq(row.id))
        .filter(otp_code::Column::ConsumedAt.is_null())
        .exec(db)
        .await?;
    if consumed.rows_affected != 1 {
        // Another request consumed this code first.
        return Err(IdentityError::InvalidOtp {
            attempts_remaining: 0,
        }
        .into());
    }
    Ok(Ok(()))
}

/// Deletes wrong-OTP records older than the cap's window. Returns how many.
pub async fn purge_failures(st: &IdentityState) -> Result<u64> {
    Ok(otp_failure::Entity::delete_many()
        .filter(otp_failure::Column::FailedAt.lte(st.core.now() - OTP_FAILURE_WINDOW))
        .exec(&st.core.db)
        .await?
        .rows_affected)
}

/// Consumes a temp token for `purpose` inside `txn`, returning its phone number.
/// Single use: the conditional update succeeds for exactly one caller.
pub async fn consume_temp_token(
    txn: &impl ConnectionTrait,
    token: &str,
    purpose: OtpPurpose,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<PhoneNumber> {
    let hash = sha256_hex(token.as_bytes());
    let row = temp_token::Entity::find()
        .filter(temp_token::Column::TokenHash.eq(hash))
        .one(txn)
        .await?
        .filter(|r| r.purpose == purpose.as_str() && r.used_at.is_none() && r.expires_at > now)
        .ok_or(IdentityError::InvalidTempToken)?;
    let used = temp_token::Entity::update_many()
        .col_expr(temp_token::Column::UsedAt, Expr::value(now))
        .filter(temp_token::Column::Id.eq(row.id))
        .filter(temp_token::Column::UsedAt.is_null())
        .exec(txn)
        .await?;
    if used.rows_affected != 1 {
        return Err(IdentityError::InvalidTempToken.into());
    }
    Ok(PhoneNumber::from_stored(row.phone))
}

/// Checks a temp token without consuming it (to fail fast before expensive work).
pub async fn peek_temp_token(
    db: &impl ConnectionTrait,
    token: &str,
    purpose: OtpPurpose,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<PhoneNumber> {
    let hash = sha256_hex(token.as_bytes());
    temp_token::Entity::find()
        .filter(temp_token::Column::TokenHash.eq(hash))
        .one(db)
        .await?
        .filter(|r| r.purpose == purpose.as_str() && r.used_at.is_none() && r.expires_at > now)
        .map(|r| PhoneNumber::from_stored(r.phone))
        .ok_or(IdentityError::InvalidTempToken.into())
}
