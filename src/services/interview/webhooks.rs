//! Completion webhooks. The delivery row, and a job (`interview.webhook`, payload the
//! delivery id) on the core job queue, are written in the transaction that completes the
//! session, due at once; whichever node claims the job makes one attempt through the shared
//! public-only, no-redirect transport (`core::webhook_transport`), records it on the row and
//! asks the queue for the next attempt at the time of the schedule. Retries follow
//! messaging's rules (`switchboard_actors::backoff`): every non-2xx answer and transport error
//! is retried after 30 s × 4ⁿ⁻¹ capped at 6 h, ± 10 % jitter, never sooner than a (capped)
//! Retry-After; after `max_attempts` the row is `failed`. Delivery is at least once: each attempt carries `X-Webhook-Delivery-ID` (the
//! row id, the same on every retry) for receivers to deduplicate. With an `X-Webhook-Secret`
//! at creation, each attempt carries
//!
//! - `X-Webhook-Signature: sha256=<hex HMAC-SHA256(secret, body)>` (unchanged, kept for
//!   receivers that verify it);
//! - `X-Webhook-Timestamp: <Unix seconds of this attempt>` and
//!   `X-Webhook-Signature-V2: sha256=<hex HMAC-SHA256(secret, "{timestamp}.{body}")>`:
//!   receivers should prefer it and refuse timestamps more than five minutes old, so a
//!   captured delivery cannot be replayed later.

use super::settings::InterviewSettings;
use crate::core::clock::SharedClock;
use crate::core::jobs::{Done, Job, JobFailure, JobResult, Jobs, NewJob};
use crate::core::secrets::hmac_sha256_hex;
use crate::core::webhook_transport::{HttpTransport, PostError};
use crate::core::CoreContext;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, DatabaseConnection, DatabaseTransaction, DbErr, EntityTrait,
    QueryFilter, Set,
};
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::sync::Arc;
use switchboard_actors::interview::{CompletionHook, Report, ReportSummary};
use switchboard_actors::{backoff, RetryPolicy};
use switchboard_entities::interview::session;
use switchboard_entities::interview::webhook_delivery::{self as delivery, DeliveryStatus};
use uuid::Uuid;

pub const SIGNATURE_HEADER: &str = "X-Webhook-Signature";
pub const SIGNATURE_V2_HEADER: &str = "X-Webhook-Signature-V2";
pub const TIMESTAMP_HEADER: &str = "X-Webhook-Timestamp";
pub const DELIVERY_ID_HEADER: &str = "X-Webhook-Delivery-ID";
pub const EVENT: &str = "interview.completed";

/// The job queue's topic of delivery attempts.
pub const JOB_TOPIC: &str = "interview.webhook";
/// Claims of the job that never reached the receiver (a node gone mid-attempt, a store
/// error) count on the job but not on the delivery, whose own count decides when it is
/// given up; the job allows this many besides.
const LOST_CLAIMS: i32 = 3;

/// A delivery job's payload.
#[derive(Debug, Serialize, Deserialize)]
struct DeliveryJob {
    delivery_id: Uuid,
}

#[derive(Clone)]
pub struct Webhooks(Arc<Inner>);

struct Inner {
    db: DatabaseConnection,
    jobs: Jobs,
    transport: HttpTransport,
    clock: SharedClock,
    policy: RetryPolicy,
}

/// `v2` of a delivery: hex HMAC-SHA256 of `"{timestamp}.{body}"` keyed with the secret.
pub fn signature_v2(secret: &str, timestamp: i64, body: &str) -> String {
    hmac_sha256_hex(secret.as_bytes(), format!("{timestamp}.{body}").as_bytes())
}

/// Stored times are whole milliseconds, so a value read back compares equal when a claim
/// matches on it (whatever sub-millisecond precision the database keeps).
fn millis(t: DateTime<Utc>) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(t.timestamp_millis()).unwrap_or(t)
}

/// One attempt's outcome: `Err((status, error, retry_after))`.
type Attempt = Result<u16, (Option<u16>, String, Option<chrono::Duration>)>;

impl Webhooks {
    pub fn new(
        core: &CoreContext,
        cfg: &InterviewSettings,
        roots: &crate::core::tls::ExtraRoots,
    ) -> Result<Self, reqwest::Error> {
        let w = &cfg.webhook;
        Ok(Self(Arc::new(Inner {
            db: core.db.clone(),
            jobs: core.jobs.clone(),
            transport: HttpTransport::new("interview", w.allow_private_urls, roots)?,
            clock: core.clock.clone(),
            policy: w.policy(),
        })))
    }

    /// Registers the delivery attempts with the job queue.
    pub fn register(&self, core: &CoreContext) {
        let this = self.clone();
        core.jobs.handle(JOB_TOPIC, move |job| {
            let this = this.clone();
            async move { this.attempt(job).await }
        });
    }

    /// One attempt of the job's delivery, recorded on its row; a failure before the last
    /// attempt asks for the next one at the schedule's time. A delivery given up is `failed`
    /// on its row and its job is done.
    async fn attempt(&self, job: Job) -> JobResult {
        let DeliveryJob { delivery_id } = job.payload()?;
        let db = &self.0.db;
        let policy = &self.0.policy;
        let Some(row) = delivery::Entity::find_by_id(delivery_id).one(db).await? else {
            return Ok(Done::default());
        };
        if row.status != DeliveryStatus::Pending {
            return Ok(Done::default());
        }
        let attempt = row.attempts + 1;
        let outcome = self.post(&row).await;
        let now = millis(self.0.clock.now());
        let mut update = delivery::Entity::update_many()
            .col_expr(delivery::Column::Attempts, Expr::value(attempt))
            .filter(delivery::Column::Id.eq(row.id))
            .filter(delivery::Column::Status.eq(DeliveryStatus::Pending))
            .filter(delivery::Column::Attempts.eq(row.attempts));
        let mut retry = None;
        update = match outcome {
            Ok(status) => update
                .col_expr(
                    delivery::Column::Status,
                    Expr::value(DeliveryStatus::Delivered),
                )
                .col_expr(delivery::Column::LastStatus, Expr::value(i32::from(status)))
                .col_expr(
                    delivery::Column::LastError,
                    Expr::value(Option::<String>::None),
                )
                .col_expr(delivery::Column::DeliveredAt, Expr::value(now)),
            Err((status, error, retry_after)) => {
                tracing::warn!(delivery = %row.id, attempt, error = %error, "webhook attempt failed");
                let update = update
                    .col_expr(
                        delivery::Column::LastStatus,
                        Expr::value(status.map(i32::from)),
                    )
                    .col_expr(
                        delivery::Column::LastError,
                        Expr::value(error.chars().take(500).collect::<String>()),
                    );
                if attempt >= policy.max_attempts {
                    update.col_expr(
                        delivery::Column::Status,
                        Expr::value(DeliveryStatus::Failed),
                    )
                } else {
                    let sample = rand::random::<f64>() * 2.0 - 1.0;
                    let next = millis(now + backoff(policy, attempt, retry_after, sample));
                    retry = Some(JobFailure::retry_at(error, next));
                    update.col_expr(delivery::Column::NextAttemptAt, Expr::value(next))
                }
            }
        };
        // Unchanged only when another claim recorded this attempt first: it goes on from there.
        if update.exec(db).await?.rows_affected != 1 {
            return Ok(Done::default());
        }
        match retry {
            Some(failure) => Err(failure),
            None => Ok(Done::from(1)),
        }
    }

    /// One POST.
    async fn post(&self, row: &delivery::Model) -> Attempt {
        let now = self.0.clock.now();
        let ts = now.timestamp();
        let mut headers = vec![
            ("X-Webhook-Event", EVENT.to_owned()),
            (DELIVERY_ID_HEADER, row.id.to_string()),
            // The same id under its earlier name, for receivers that read it.
            ("X-Webhook-Delivery", row.id.to_string()),
        ];
        if let Some(sig) = &row.signature {
            headers.push((SIGNATURE_HEADER, format!("sha256={sig}")));
        }
        if let Some(secret) = &row.secret {
            headers.push((TIMESTAMP_HEADER, ts.to_string()));
            headers.push((
                SIGNATURE_V2_HEADER,
                format!("sha256={}", signature_v2(secret, ts, &row.body)),
            ));
        }
        match self
            .0
            .transport
            .post(
                &row.url,
                &headers,
                row.body.clone(),
                self.0.policy.timeout,
                now,
            )
            .await
        {
            Ok(res) if (200..300).contains(&res.status) => Ok(res.status),
            // Any other answer (a redirect, never followed, included) is retried, as
            // messaging's webhooks are.
            Ok(res) => Err((
                Some(res.status),
                format!("status {}", res.status),
                res.retry_after,
            )),
            Err(PostError::Refused(e) | PostError::Failed(e)) => Err((None, e, None)),
        }
    }
}

/// The body sent to webhook_url: the report summary with the session's identifiers.
pub fn payload(s: &session::Model, report: &Report) -> String {
    json!({
        "event": EVENT,
        "session_id": s.id,
        "application_id": s.application_id,
        "user_id": s.user_id,
        "candidate_name": s.candidate_name,
        "job_title": s.job_title,
        "status": s.status,
        "completed_at": s.completed_at,
        "metadata": s.metadata,
        "report": ReportSummary::from(report),
    })
    .to_string()
}

#[async_trait]
impl CompletionHook for Webhooks {
    async fn record(
        &self,
        txn: &DatabaseTransaction,
        s: &session::Model,
        report: &Report,
    ) -> Result<Option<Uuid>, DbErr> {
        let Some(url) = s.webhook_url.clone() else {
            return Ok(None);
        };
        let body = payload(s, report);
        let signature = s
            .webhook_secret
            .as_ref()
            .map(|secret| hmac_sha256_hex(secret.as_bytes(), body.as_bytes()));
        let id = Uuid::new_v4();
        let now = millis(self.0.clock.now());
        delivery::ActiveModel {
            id: Set(id),
            session_id: Set(s.id),
            url: Set(url),
            body: Set(body),
            signature: Set(signature),
            secret: Set(s.webhook_secret.clone()),
            status: Set(DeliveryStatus::Pending),
            attempts: Set(0),
            last_error: Set(None),
            last_status: Set(None),
            created_at: Set(now),
            delivered_at: Set(None),
            next_attempt_at: Set(Some(now)),
        }
        .insert(txn)
        .await?;
        let job = NewJob::new(JOB_TOPIC, json!(DeliveryJob { delivery_id: id }))
            .key(format!("{JOB_TOPIC}:{id}"))
            .max_attempts(self.0.policy.max_attempts + LOST_CLAIMS);
        self.0.jobs.enqueue(txn, job).await?;
        Ok(Some(id))
    }

    /// The first attempt is made at once: the committed job is due now, so this node's
    /// worker, woken, takes it (or another node's, whichever claims it first).
    fn completed(&self, recorded: Option<Uuid>) {
        if recorded.is_some() {
            self.0.jobs.wake();
        }
    }
}
