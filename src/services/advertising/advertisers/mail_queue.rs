//! Queueing the mails to advertisers (`mail` sends them): which mail, and the job that
//! carries it, written in the caller's transaction.

use super::super::error::Result;
use super::super::state::AdvertisingState;
use super::tokens::Purpose;
use crate::core::error::ApiError;
use crate::core::jobs::NewJob;
use chrono::{DateTime, Utc};
use sea_orm::ConnectionTrait;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

pub const VERIFICATION_TOPIC: &str = "email-verification";
pub const RESET_TOPIC: &str = "password-reset-email";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Verification,
    Reset,
}

impl Kind {
    pub fn topic(self) -> &'static str {
        match self {
            Self::Verification => VERIFICATION_TOPIC,
            Self::Reset => RESET_TOPIC,
        }
    }

    pub fn purpose(self) -> Purpose {
        match self {
            Self::Verification => Purpose::VerifyEmail,
            Self::Reset => Purpose::ResetPassword,
        }
    }

    /// Subject and text of the mail carrying `link`.
    pub fn letter(self, link: &str) -> (&'static str, String) {
        match self {
            Self::Verification => (
                "Verify your email address",
                format!(
                    "Welcome to Switchboard Ads.\n\nVerify your email address: {link}\n\n\
                     The link works once, for 24 hours. If you did not sign up, ignore this mail."
                ),
            ),
            Self::Reset => (
                "Reset your password",
                format!(
                    "Set a new password for your Switchboard Ads account: {link}\n\n\
                     The link works once, for 1 hour. If you did not ask, ignore this mail: \
                     your password stays as it is."
                ),
            ),
        }
    }

    /// The page of the advertiser app the link opens.
    pub fn page(self) -> &'static str {
        match self {
            Self::Verification => "verify-email",
            Self::Reset => "reset-password",
        }
    }
}

#[derive(Debug, Serialize, Deserialize)]
pub struct MailJob {
    pub advertiser_id: Uuid,
    pub queued_at: DateTime<Utc>,
}

/// Queues a mail of `kind` to the advertiser in `db` (the caller's transaction; call
/// `st.core.jobs.wake()` after the commit).
pub async fn enqueue(
    st: &AdvertisingState,
    db: &impl ConnectionTrait,
    advertiser_id: Uuid,
    kind: Kind,
) -> Result<()> {
    let payload = serde_json::to_value(MailJob {
        advertiser_id,
        queued_at: st.core.now(),
    })
    .map_err(ApiError::internal)?;
    let mut job = NewJob::new(kind.topic(), payload);
    if kind == Kind::Reset {
        // At most one reset mail per account per clock minute, however often it is asked
        // for: forgot-password is open to anyone who knows the address.
        let minute = st.core.now().timestamp().div_euclid(60);
        job = job.key(format!("{RESET_TOPIC}:{advertiser_id}:{minute}"));
    }
    st.core.jobs.enqueue(db, job).await?;
    Ok(())
}
