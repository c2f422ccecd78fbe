//! Mails to advertisers, sent by jobs: `email-verification` (a link to verify the address,
//! valid 24 hours) and `password-reset-email` (a link to set a new password, 1 hour). Both
//! are queued in the transaction of the change that calls for them; the job makes the token
//! when it runs, so the queue never holds a working token, and sends it through the email
//! port (`[providers.email]`, the outbox by default).
//!
//! Payload of both: `{"advertiser_id": "<uuid>", "queued_at": "<RFC 3339>"}`. An unknown
//! advertiser, or one already verified for `email-verification`, is sent nothing.

use super::super::error::Result;
use super::super::state::AdvertisingState;
use super::store;
use super::tokens::{self, Purpose};
use crate::core::error::ApiError;
use crate::core::jobs::{Done, Job, JobFailure, JobResult, NewJob};
use crate::providers::email::{self, EmailMessage, EmailSender};
use crate::providers::{Handover, ProviderError, Retake};
use chrono::{DateTime, Utc};
use sea_orm::ConnectionTrait;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use uuid::Uuid;

pub const VERIFICATION_TOPIC: &str = "email-verification";
pub const RESET_TOPIC: &str = "password-reset-email";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Verification,
    Reset,
}

impl Kind {
    fn topic(self) -> &'static str {
        match self {
            Self::Verification => VERIFICATION_TOPIC,
            Self::Reset => RESET_TOPIC,
        }
    }

    fn purpose(self) -> Purpose {
        match self {
            Self::Verification => Purpose::VerifyEmail,
            Self::Reset => Purpose::ResetPassword,
        }
    }

    /// Subject and text of the mail carrying `link`.
    fn letter(self, link: &str) -> (&'static str, String) {
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
    fn page(self) -> &'static str {
        match self {
            Self::Verification => "verify-email",
            Self::Reset => "reset-password",
        }
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct MailJob {
    advertiser_id: Uuid,
    queued_at: DateTime<Utc>,
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

/// Registers both topics' handler, and the sign-in lock notice's, with one email sender
/// built from `[providers.email]`.
pub fn register(st: &AdvertisingState) -> std::result::Result<(), ProviderError> {
    let sender = email::from_settings(
        &st.providers.settings.email,
        st.providers.outbox.clone(),
        st.core.clock.clone(),
        &st.providers.roots,
    )?;
    for kind in [Kind::Verification, Kind::Reset] {
        let sender = sender.clone();
        super::super::jobs::handle(st, kind.topic(), move |st, job| {
            let sender = sender.clone();
            async move { send(&st, sender, kind, job).await }
        });
    }
    super::super::signin_guard::register(st, sender);
    Ok(())
}

async fn send(
    st: &AdvertisingState,
    sender: Arc<dyn EmailSender>,
    kind: Kind,
    job: Job,
) -> JobResult {
    let m: MailJob = job.payload()?;
    let db = &st.core.db;
    let to_job = |e: ApiError| JobFailure::retry(e.message().to_owned());
    let Some(a) = store::by_id(db, m.advertiser_id).await.map_err(to_job)? else {
        return Ok(Done::default());
    };
    if kind == Kind::Verification && a.email_verified_at.is_some() {
        return Ok(Done::default());
    }
    let token = tokens::issue(db, a.id, kind.purpose(), st.core.now())
        .await
        .map_err(to_job)?;
    let link = format!(
        "{}/{}?token={token}",
        st.cfg.advertiser_app_url.trim_end_matches('/'),
        kind.page()
    );
    let (subject, text) = kind.letter(&link);
    deliver(
        st,
        sender.as_ref(),
        &job,
        m.queued_at,
        &a.email,
        subject,
        &text,
    )
    .await
}

/// Sends the mail of `job` (queued at `queued_at`) to `to` from the service's sender address:
/// a refusal that no retry can change fails the job for good, anything else is retried.
pub async fn deliver(
    st: &AdvertisingState,
    sender: &dyn EmailSender,
    job: &Job,
    queued_at: DateTime<Utc>,
    to: &str,
    subject: &str,
    text: &str,
) -> JobResult {
    let h = Handover {
        message_id: job.id.0,
        // A later attempt may follow one that sent and then lost its lease.
        retake: (job.attempt > 1).then_some(Retake {
            provider_message_id: None,
            since: queued_at,
            taken: &[],
        }),
    };
    let msg = EmailMessage {
        to,
        from_name: &st.cfg.mail_from_name,
        from_address: &st.cfg.mail_from_address,
        subject,
        text: Some(text),
        html: None,
        service: "advertising",
        attachments: &[],
    };
    match sender.send(&h, &msg).await {
        Ok(_) => Ok(Done::from(1)),
        Err(e @ ProviderError::Rejected { status, .. }) if status != 429 && status < 500 => {
            Err(JobFailure::permanent(e))
        }
        Err(e) => Err(JobFailure::retry(e)),
    }
}
