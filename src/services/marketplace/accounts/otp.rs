//! The marketplace's one-time codes (kept by `core::otp`): sent through the SMS port; a wrong
//! code reports the attempts left, and a code whose attempts are spent is simply invalid.

use crate::core::error::ApiError;
use crate::core::otp::{Checked, Live, OtpCodes};
use crate::core::phone::PhoneNumber;
use crate::providers::sms::text_new_code;
use crate::services::marketplace::accounts::domain::OtpPurpose;
use crate::services::marketplace::error::{MarketplaceError, Result};
use crate::services::marketplace::state::MarketplaceState;
use chrono::{DateTime, Duration, Utc};

/// How the text that carries a code opens.
const CODE_INTRO: &str = "Your car marketplace code is";

/// The marketplace's codes.
pub fn codes(st: &MarketplaceState) -> OtpCodes<'_> {
    OtpCodes {
        db: &st.core.db,
        key: st.otp_key(),
        service: "marketplace",
        ttl_secs: st.cfg.otp_ttl_secs,
        max_attempts: st.cfg.otp_max_attempts,
    }
}

/// Stores a fresh code (retiring earlier ones) and sends it.
pub async fn send(st: &MarketplaceState, phone: &PhoneNumber, purpose: OtpPurpose) -> Result<()> {
    let (sms, now) = (st.providers.sms.as_ref(), st.core.now());
    text_new_code(&codes(st), sms, phone, purpose.as_str(), CODE_INTRO, now).await?;
    Ok(())
}

/// Consumes the phone's live code of `purpose` when `code` matches it. A wrong code costs an
/// attempt; once they are spent the code is invalid.
pub async fn verify(
    st: &MarketplaceState,
    phone: &PhoneNumber,
    purpose: OtpPurpose,
    code: &str,
) -> Result<()> {
    let now = st.core.now();
    let codes = codes(st);
    let row = match codes.live(phone, purpose.as_str(), now).await? {
        Live::Expired => return Err(MarketplaceError::OtpExpired.into()),
        Live::Code(row) => row,
        Live::None => return Err(invalid(0)),
    };
    daily_cap(st, &codes, phone, now).await?;
    match codes.check(&row, code, now).await? {
        Checked::Valid => Ok(()),
        Checked::Wrong { attempts_remaining } => Err(invalid(attempts_remaining)),
        Checked::Exhausted | Checked::Gone => Err(invalid(0)),
    }
}

/// However many codes are asked for, a phone takes `otp_attempts_per_day` guesses over a
/// rolling 24 hours (read before this attempt: parallel guesses may pass it by a few, each
/// code's own attempt count still holds).
async fn daily_cap(
    st: &MarketplaceState,
    codes: &OtpCodes<'_>,
    phone: &PhoneNumber,
    now: DateTime<Utc>,
) -> Result<()> {
    let window = Duration::hours(24);
    let cap = i64::from(Ord::max(st.cfg.otp_attempts_per_day, 1));
    let tried = codes.attempts_since(phone, now - window).await?;
    let mut total: i64 = tried.iter().map(|(_, n)| i64::from(*n)).sum();
    if total < cap {
        return Ok(());
    }
    // Lifted once enough of the oldest codes' attempts have left the window.
    let until = tried
        .iter()
        .find(|(_, n)| {
            total -= i64::from(*n);
            total < cap
        })
        .map_or(now, |(at, _)| *at + window);
    Err(MarketplaceError::OtpLocked { until, now }.into())
}

fn invalid(attempts_remaining: i32) -> ApiError {
    MarketplaceError::InvalidOtp { attempts_remaining }.into()
}
