//! Signing in by phone: a code by SMS (one a minute per phone, within the phone's and the
//! country's budgets: `core::code_limits`), checked against `core::otp`; wrong codes in a
//! row lock the phone, and the first right one makes the poster. The guard row per phone
//! holds the lock and the country asked for.

use super::super::error::{AdvertisingError, Result};
use super::super::places::data::Country;
use super::super::sessions;
use super::super::state::AdvertisingState;
use super::store;
use crate::core::code_limits::Refused;
use crate::core::error::ApiError;
use crate::core::otp::{Checked, Live, OtpCodes};
use crate::core::phone::PhoneNumber;
use crate::providers::sms::text_new_code;
use actix_web::HttpRequest;
use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{ColumnTrait, Condition, EntityTrait, QueryFilter, Set};
use switchboard_entities::advertising::poster::PosterStatus;
use switchboard_entities::advertising::{phone_guard, poster};

const PURPOSE: &str = "sign_in";

/// How the text that carries a code opens.
const CODE_INTRO: &str = "Your sign-in code is";

/// The platform's codes.
fn codes(st: &AdvertisingState) -> OtpCodes<'_> {
    OtpCodes {
        db: &st.core.db,
        key: crate::core::secrets::hmac_sha256(
            st.core.settings.auth.jwt_secret.as_bytes(),
            b"advertising-otp",
        ),
        service: "advertising",
        ttl_secs: st.cfg.otp_ttl_secs,
        max_attempts: st.cfg.otp_max_failures,
    }
}

async fn guard(st: &AdvertisingState, phone: &PhoneNumber) -> Result<Option<phone_guard::Model>> {
    Ok(phone_guard::Entity::find_by_id(phone.as_str())
        .one(&st.core.db)
        .await?)
}

fn locked(g: &phone_guard::Model, now: DateTime<Utc>) -> Result<()> {
    match g.locked_until {
        Some(until) if until > now => Err(AdvertisingError::OtpLocked { until, now }.into()),
        _ => Ok(()),
    }
}

/// Sends a fresh code to `phone`, unless the phone is locked or the code limits refuse
/// (`core::code_limits`: the cooldown, the phone's budgets, the country calling code's
/// ceiling); a refused request spends none of them.
pub async fn request(
    req: &HttpRequest,
    st: &AdvertisingState,
    phone: &PhoneNumber,
    country: &Country,
) -> Result<()> {
    let now = st.core.now();
    // A locked phone is told so before any limit is counted.
    if let Some(g) = guard(st, phone).await? {
        locked(&g, now)?;
    }
    let send = async {
        claim(st, phone, country, now).await?;
        let sms = st.providers.sms.as_ref();
        text_new_code(&codes(st), sms, phone, PURPOSE, CODE_INTRO, now).await
    };
    st.cfg
        .code_limits()
        .send(req, phone, PURPOSE, send)
        .await
        .map_err(|refused| match refused {
            Refused::Cooldown { until, now } => AdvertisingError::OtpCooldown { until, now }.into(),
            Refused::CallingCode { until, now } => {
                AdvertisingError::CountrySmsLimit { until, now }.into()
            }
            Refused::Other(e) => e,
        })
}

/// Records the country asked for with the code, unless a lock came meanwhile: one
/// conditional update, so a lock set by a parallel wrong code is never passed over.
async fn claim(
    st: &AdvertisingState,
    phone: &PhoneNumber,
    country: &Country,
    now: DateTime<Utc>,
) -> Result<()> {
    let db = &st.core.db;
    phone_guard::Entity::insert(phone_guard::ActiveModel {
        phone: Set(phone.as_str().to_owned()),
        country: Set(country.alpha2.to_string()),
        failures: Set(0),
        locked_until: Set(None),
    })
    .on_conflict_do_nothing_on([phone_guard::Column::Phone])
    .exec(db)
    .await?;
    let claimed = phone_guard::Entity::update_many()
        .col_expr(
            phone_guard::Column::Country,
            Expr::value(country.alpha2.to_string()),
        )
        .filter(phone_guard::Column::Phone.eq(phone.as_str()))
        .filter(
            Condition::any()
                .add(phone_guard::Column::LockedUntil.is_null())
                .add(phone_guard::Column::LockedUntil.lte(now)),
        )
        .exec(db)
        .await?;
    if claimed.rows_affected == 0 {
        let g = guard(st, phone)
            .await?
            .ok_or_else(|| ApiError::internal(std::io::Error::other("phone guard vanished")))?;
        locked(&g, now)?;
    }
    Ok(())
}

/// Checks `code` for `phone`: right, the poster (made on first success, in the country
/// asked for with the code) and a token; wrong, one more failure, and the last allowed
/// one locks the phone.
pub async fn verify(
    st: &AdvertisingState,
    phone: &PhoneNumber,
    code: &str,
) -> Result<(poster::Model, String)> {
    let now = st.core.now();
    let g = guard(st, phone).await?;
    if let Some(g) = &g {
        locked(g, now)?;
    }
    let codes = codes(st);
    let row = match codes.live(phone, PURPOSE, now).await? {
        Live::Code(row) => row,
        Live::None | Live::Expired => return Err(AdvertisingError::OtpExpired.into()),
    };
    match codes.check(&row, code, now).await? {
        Checked::Valid => {}
        Checked::Wrong { .. } | Checked::Exhausted | Checked::Gone => {
            return Err(failed(st, phone, now).await);
        }
    }
    phone_guard::Entity::update_many()
        .col_expr(phone_guard::Column::Failures, Expr::value(0))
        .filter(phone_guard::Column::Phone.eq(phone.as_str()))
        .exec(&st.core.db)
        .await?;
    let country = g.map_or_else(|| "US".to_owned(), |g| g.country);
    let p = store::find_or_create(st, phone, &country).await?;
    if p.status != PosterStatus::Active {
        return Err(AdvertisingError::Banned.into());
    }
    let token = sessions::sign_in_poster(st, &p).await?;
    Ok((p, token))
}

/// Counts a wrong code; the `otp_max_failures`-th in a row locks the phone (and its code
/// goes with it). Answers the error the caller sees.
async fn failed(st: &AdvertisingState, phone: &PhoneNumber, now: DateTime<Utc>) -> ApiError {
    let outcome = async {
        let db = &st.core.db;
        phone_guard::Entity::update_many()
            .col_expr(
                phone_guard::Column::Failures,
                Expr::col(phone_guard::Column::Failures).add(1),
            )
            .filter(phone_guard::Column::Phone.eq(phone.as_str()))
            .exec(db)
            .await?;
        let until = now + Duration::seconds(st.cfg.otp_lock_secs);
        let locked = phone_guard::Entity::update_many()
            .col_expr(phone_guard::Column::LockedUntil, Expr::value(until))
            .col_expr(phone_guard::Column::Failures, Expr::value(0))
            .filter(phone_guard::Column::Phone.eq(phone.as_str()))
            .filter(phone_guard::Column::Failures.gte(st.cfg.otp_max_failures))
            .exec(db)
            .await?;
        if locked.rows_affected > 0 {
            return Ok::<_, ApiError>(AdvertisingError::OtpLocked { until, now }.into());
        }
        let failures = guard(st, phone).await?.map_or(0, |g| g.failures);
        Ok(AdvertisingError::InvalidOtp {
            attempts_remaining: Ord::max(st.cfg.otp_max_failures - failures, 0),
        }
        .into())
    };
    outcome.await.unwrap_or_else(|e| e)
}
