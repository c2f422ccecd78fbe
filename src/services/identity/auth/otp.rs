//! One-time codes (kept by `core::otp`) sent by SMS within the code limits
//! (`core::code_limits`), with identity's own rules on top: who may ask for one, a per-phone
//! daily cap on wrong codes, and the single-use temp token a verified code yields.

use super::super::error::{IdentityError, Result};
use super::super::state::IdentityState;
use super::super::users::store::{any_user_by_phone, live_user_by_phone};
use super::domain::OtpPurpose;
use super::dto::{OtpSent, OtpVerified};
use crate::core::code_limits::Refused;
use crate::core::error::secs_until;
use crate::core::otp::{Checked, Live, OtpCodes};
use crate::core::phone::PhoneNumber;
use crate::core::secrets::{random_token, sha256_hex};
use crate::providers::sms::text_new_code;
use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect, Set,
};
use switchboard_entities::identity::{otp_failure, temp_token};
use uuid::Uuid;

/// The rolling window of the per-phone cap on wrong codes.
pub const OTP_FAILURE_WINDOW: Duration = Duration::hours(24);

/// How the text that carries a code opens.
const CODE_INTRO: &str = "Your Switchboard code is";

/// The identity service's codes.
pub fn codes(st: &IdentityState) -> OtpCodes<'_> {
    OtpCodes {
        db: &st.core.db,
        key: st.otp_key(),
        service: "identity",
        ttl_secs: st.cfg.otp_ttl_secs,
        max_attempts: st.cfg.otp_max_attempts,
    }
}

/// Texts a code of `purpose` to `phone` when the purpose allows it (sign-up: no account yet;
/// PIN reset: a live one) and the code limits let it; a refused request spends none of them.
pub async fn send(
    req: &actix_web::HttpRequest,
    st: &IdentityState,
    phone: &PhoneNumber,
    purpose: OtpPurpose,
) -> Result<OtpSent> {
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
    let ttl = st.cfg.otp_ttl_secs;
    let (sms, now) = (st.providers.sms.as_ref(), st.core.now());
    let codes = codes(st);
    let text = text_new_code(&codes, sms, phone, purpose.as_str(), CODE_INTRO, now);
    st.cfg
        .code_limits()
        .send(req, phone, purpose.as_str(), text)
        .await
        .map_err(|refused| match refused {
            Refused::Cooldown { until, now } => IdentityError::OtpCooldown {
                retry_after: secs_until(until, now),
            }
            .into(),
            Refused::CallingCode { until, now } => IdentityError::CountrySmsLimit {
                retry_after: secs_until(until, now),
            }
            .into(),
            Refused::Other(e) => e,
        })?;
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
    let codes = codes(st);
    let row = match codes.live(phone, purpose.as_str(), now).await? {
        Live::None => {
            return Err(IdentityError::InvalidOtp {
                attempts_remaining: 0,
            }
            .into())
        }
        Live::Expired => return Err(IdentityError::OtpExpired.into()),
        Live::Code(row) => row,
    };
    let slot = reserve_daily_attempt(st, phone, now).await?;
    let checked = codes.check(&row, code, now).await;
    if !matches!(checked, Ok(Checked::Wrong { .. })) {
        // Only a wrong code counts against the phone's daily cap.
        otp_failure::Entity::delete_by_id(slot).exec(db).await?;
    }
    match checked? {
        Checked::Valid => {}
        Checked::Wrong { attempts_remaining } => {
            return Err(IdentityError::InvalidOtp { attempts_remaining }.into())
        }
        Checked::Exhausted => return Err(IdentityError::TooManyAttempts.into()),
        Checked::Gone => {
            return Err(IdentityError::InvalidOtp {
                attempts_remaining: 0,
            }
            .into())
        }
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
