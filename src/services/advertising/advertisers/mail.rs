//! Mails to advertisers, sent by jobs: `email-verification` (a link to verify the address,
//! valid 24 hours) and `password-reset-email` (a link to set a new password, 1 hour). Both
//! are queued in the transaction of the change that calls for them; the job makes the token
//! when it runs, so the queue never holds a working token, and sends it through the email
//! port (`[providers.email]`, the outbox by default).
//!
//! Payload of both: `{"advertiser_id": "<uuid>", "queued_at": "<RFC 3339>"}`. An unknown
//! advertiser, or one already verified for `email-verification`, is sent nothing.

use super::super::state::AdvertisingState;
use super::mail_queue::{Kind, MailJob};
use super::store;
use super::tokens;
use crate::core::error::ApiError;
use crate::core::jobs::{Done, Job, JobFailure, JobResult};
use crate::providers::email::{self, EmailMessage, EmailSender};
use crate::providers::{Handover, ProviderError, Retake};
use chrono::{DateTime, Utc};
use std::sync::Arc;

/// Registers both topics' handler with an email sender built from `[providers.email]`, and
/// hands the sender back for the service's other mails (the sign-in lock notice).
pub fn register(st: &AdvertisingState) -> std::result::Result<Arc<dyn EmailSender>, ProviderError> {
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
    Ok(sender)
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
        list_unsubscribe: None,
    };
    match sender.send(&h, &msg).await {
        Ok(_) => Ok(Done::from(1)),
        Err(e @ ProviderError::Rejected { status, .. }) if status != 429 && status < 500 => {
            Err(JobFailure::permanent(e))
        }
        Err(e) => Err(JobFailure::retry(e)),
    }
}
