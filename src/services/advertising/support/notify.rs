//! Telling a poster something (their video is ready, a screenshot was decided): a push to
//! their device, when they registered one, and a WhatsApp message to their phone. `poster`
//! enqueues both in the caller's database transaction, so they go out only if the change
//! they announce commits (call `st.core.jobs.wake()` after the commit to send at once; the
//! worker's poll finds them otherwise); the handlers registered by `register_jobs` send them.
//!
//! Job payloads:
//! - `push-notification`: `{"poster_id": "<uuid>", "kind": "video_ready", "title": "…",
//!   "body": "…", "data": {"<key>": "<string>", …}}`. The device token is read when the
//!   job runs (the poster may have replaced or removed it meanwhile; none left: nothing is
//!   sent). `data` reaches the app with `kind` added. A token the provider no longer knows
//!   is deleted (only if it is still the poster's) and the job ends; throttling and outages
//!   retry (at the provider's Retry-After when given), any other refusal ends the job dead.
//! - `whatsapp-message`: `{"to": "+447700900123", "body": "…", "kind": "video_ready",
//!   "queued_at": "<RFC 3339>"}`. The job's id is the message's id, so a retaken job does not
//!   write a second sandbox line; an unreachable provider, 429 and 5xx retry, other
//!   refusals end the job dead.

use super::super::error::Result;
use super::super::state::AdvertisingState;
use crate::core::jobs::{Done, Job, JobFailure, JobResult, NewJob};
use crate::providers::push::{Platform, PushError, PushMessage};
use crate::providers::whatsapp::{self, WhatsAppMessage, WhatsAppSender};
use crate::providers::{Handover, ProviderError, Retake};
use chrono::{DateTime, Utc};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;
use switchboard_entities::advertising::{device_token, poster as posters};
use uuid::Uuid;

pub const PUSH_TOPIC: &str = "push-notification";
pub const WHATSAPP_TOPIC: &str = "whatsapp-message";
/// The service the outbox and providers see as the sender.
const SERVICE: &str = "advertising";

/// What to tell a poster.
#[derive(Debug, Clone)]
pub struct Notice {
    /// What happened, for programs (`video_ready`, `screenshot_approved`, …).
    pub kind: &'static str,
    pub title: String,
    pub body: String,
    /// Key-value pairs the app receives with a push (ids to open, amounts).
    pub data: BTreeMap<String, String>,
}

impl Notice {
    pub fn new(kind: &'static str, title: impl Into<String>, body: impl Into<String>) -> Self {
        Self {
            kind,
            title: title.into(),
            body: body.into(),
            data: BTreeMap::new(),
        }
    }

    /// Adds a key-value pair for the app (`subscriptionId`, `screenshotId`).
    pub fn with(mut self, key: &str, value: impl ToString) -> Self {
        self.data.insert(key.to_owned(), value.to_string());
        self
    }
}

#[derive(Debug, Serialize, Deserialize)]
pub struct PushJob {
    pub poster_id: Uuid,
    pub kind: String,
    pub title: String,
    pub body: String,
    #[serde(default)]
    pub data: BTreeMap<String, String>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct WhatsAppJob {
    pub to: String,
    pub body: String,
    #[serde(default)]
    pub kind: String,
    /// When it was queued: the message cannot have left before.
    #[serde(default)]
    pub queued_at: Option<DateTime<Utc>>,
}

fn job(topic: &str, payload: &impl Serialize) -> Result<NewJob> {
    let payload = serde_json::to_value(payload).map_err(crate::core::error::ApiError::internal)?;
    Ok(NewJob::new(topic, payload))
}

/// Queues `notice` for the poster in `db` (the caller's transaction): a push when they have
/// a device token, and a WhatsApp message. An unknown poster is told nothing.
pub async fn poster(
    st: &AdvertisingState,
    db: &impl ConnectionTrait,
    poster_id: Uuid,
    notice: Notice,
) -> Result<()> {
    let Some(p) = posters::Entity::find_by_id(poster_id).one(db).await? else {
        return Ok(());
    };
    let has_device = device_token::Entity::find_by_id(poster_id)
        .one(db)
        .await?
        .is_some();
    let jobs = &st.core.jobs;
    jobs.enqueue(
        db,
        job(
            WHATSAPP_TOPIC,
            &WhatsAppJob {
                to: p.phone.clone(),
                body: format!("{}\n{}", notice.title, notice.body),
                kind: notice.kind.into(),
                queued_at: Some(st.core.now()),
            },
        )?,
    )
    .await?;
    if has_device {
        let push = PushJob {
            poster_id,
            kind: notice.kind.into(),
            title: notice.title,
            body: notice.body,
            data: notice.data,
        };
        jobs.enqueue(db, job(PUSH_TOPIC, &push)?).await?;
    }
    Ok(())
}

/// Registers the handlers of both topics; the WhatsApp sender is built here, once, from
/// `[providers.whatsapp]` (as the messaging service builds its own).
pub fn register_jobs(st: &AdvertisingState) {
    let sender = whatsapp::from_settings(
        &st.providers.settings.whatsapp,
        st.providers.outbox.clone(),
        st.core.clock.clone(),
        st.providers.http.clone(),
    );
    let jobs = &st.core.jobs;
    let state = st.clone();
    jobs.handle(PUSH_TOPIC, move |job| {
        let st = state.clone();
        async move { push(&st, job).await }
    });
    jobs.handle(WHATSAPP_TOPIC, move |job| {
        let sender = sender.clone();
        async move { send_whatsapp(sender, job).await }
    });
}

async fn push(st: &AdvertisingState, job: Job) -> JobResult {
    let p: PushJob = job.payload()?;
    let db = &st.core.db;
    let Some(device) = device_token::Entity::find_by_id(p.poster_id)
        .one(db)
        .await?
    else {
        return Ok(Done::default());
    };
    let platform = Platform::parse(&device.platform).ok_or_else(|| {
        JobFailure::permanent(format!("device token platform {:?}", device.platform))
    })?;
    let mut data = p.data;
    data.insert("kind".into(), p.kind);
    let msg = PushMessage {
        device_token: &device.token,
        platform,
        title: &p.title,
        body: &p.body,
        data: &data,
        service: SERVICE,
    };
    match st.providers.push.send(&msg).await {
        Ok(_) => Ok(Done::from(1)),
        Err(PushError::TokenGone) => {
            // Only the token that failed: a new one registered meanwhile stays.
            device_token::Entity::delete_many()
                .filter(device_token::Column::PosterId.eq(p.poster_id))
                .filter(device_token::Column::Token.eq(device.token.as_str()))
                .exec(db)
                .await?;
            Ok(Done::default())
        }
        Err(e @ PushError::Retryable { retry_after, .. }) => Err(match retry_after {
            Some(after) => JobFailure::retry_at(
                &e,
                st.core.now() + chrono::Duration::from_std(after).unwrap_or_default(),
            ),
            None => JobFailure::retry(e),
        }),
        Err(e @ PushError::Permanent(_)) => Err(JobFailure::permanent(e)),
    }
}

async fn send_whatsapp(sender: Arc<dyn WhatsAppSender>, job: Job) -> JobResult {
    let w: WhatsAppJob = job.payload()?;
    let since = w.queued_at.unwrap_or(DateTime::<Utc>::UNIX_EPOCH);
    let h = Handover {
        message_id: job.id.0,
        // A later attempt may follow one that sent and then lost its lease.
        retake: (job.attempt > 1).then_some(Retake {
            provider_message_id: None,
            since,
            taken: &[],
        }),
    };
    let msg = WhatsAppMessage {
        to: &w.to,
        body: &w.body,
        service: SERVICE,
    };
    match sender.send(&h, &msg).await {
        Ok(_) => Ok(Done::from(1)),
        Err(e @ ProviderError::Rejected { status, .. }) if status != 429 && status < 500 => {
            Err(JobFailure::permanent(e))
        }
        Err(e) => Err(JobFailure::retry(e)),
    }
}
