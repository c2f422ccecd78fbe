//! Completion webhooks. The delivery row is written in the transaction that completes the
//! session; a worker task then posts it through the shared public-only, no-redirect
//! transport (`core::webhook_transport`), retrying with exponential backoff; pending rows
//! are resumed at start-up. With an `X-Webhook-Secret` at creation, each attempt carries
//!
//! - `X-Webhook-Signature: sha256=<hex HMAC-SHA256(secret, body)>` (unchanged, kept for
//!   receivers that verify it);
//! - `X-Webhook-Timestamp: <Unix seconds of this attempt>` and
//!   `X-Webhook-Signature-V2: sha256=<hex HMAC-SHA256(secret, "{timestamp}.{body}")>`:
//!   receivers should prefer it and refuse timestamps more than five minutes old, so a
//!   captured delivery cannot be replayed later.

use crate::core::clock::SharedClock;
use crate::core::config::{InterviewSettings, InterviewWebhookSettings};
use crate::core::secrets::hmac_sha256_hex;
use crate::core::webhook_transport::{HttpTransport, PostError};
use crate::core::CoreContext;
use async_trait::async_trait;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, DatabaseConnection, DatabaseTransaction, DbErr, EntityTrait,
    IntoActiveModel, QueryFilter, Set,
};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use switchboard_actors::interview::{CompletionHook, Report, ReportSummary};
use switchboard_entities::interview::{session, webhook_delivery as delivery};
use uuid::Uuid;

pub const SIGNATURE_HEADER: &str = "X-Webhook-Signature";
pub const SIGNATURE_V2_HEADER: &str = "X-Webhook-Signature-V2";
pub const TIMESTAMP_HEADER: &str = "X-Webhook-Timestamp";
pub const EVENT: &str = "interview.completed";

#[derive(Clone)]
pub struct Webhooks(Arc<Inner>);

struct Inner {
    db: DatabaseConnection,
    transport: HttpTransport,
    clock: SharedClock,
    cfg: InterviewWebhookSettings,
}

/// `v2` of a delivery: hex HMAC-SHA256 of `"{timestamp}.{body}"` keyed with the secret.
pub fn signature_v2(secret: &str, timestamp: i64, body: &str) -> String {
    hmac_sha256_hex(secret.as_bytes(), format!("{timestamp}.{body}").as_bytes())
}

impl Webhooks {
    pub fn new(core: &CoreContext, cfg: &InterviewSettings) -> Result<Self, reqwest::Error> {
        Ok(Self(Arc::new(Inner {
            db: core.db.clone(),
            transport: HttpTransport::new(
                core.settings.services.interview.webhook.allow_private_urls,
            )?,
            clock: core.clock.clone(),
            cfg: cfg.webhook.clone(),
        })))
    }

    /// Restarts delivery of rows left pending by a previous process.
    pub fn resume_pending(&self) {
        let this = self.clone();
        tokio::spawn(async move {
            let pending = delivery::Entity::find()
                .filter(delivery::Column::Status.eq("pending"))
                .all(&this.0.db)
                .await;
            match pending {
                Ok(rows) => {
                    for row in rows {
                        tokio::spawn(this.clone().deliver(row));
                    }
                }
                Err(e) => tracing::error!(error = %e, "loading pending webhooks failed"),
            }
        });
    }

    async fn deliver(self, row: delivery::Model) {
        let cfg = &self.0.cfg;
        let mut row = row;
        loop {
            let attempt = row.attempts + 1;
            let outcome = self.post(&row).await;
            let mut am = row.clone().into_active_model();
            am.attempts = Set(attempt);
            let retry = match &outcome {
                Ok(status) => {
                    am.status = Set("delivered".into());
                    am.last_status = Set(Some(i32::from(*status)));
                    am.last_error = Set(None);
                    am.delivered_at = Set(Some(self.0.clock.now()));
                    false
                }
                Err((status, error, retryable)) => {
                    let more = *retryable && attempt < cfg.max_attempts;
                    am.status = Set(if more { "pending" } else { "failed" }.into());
                    am.last_status = Set(status.map(i32::from));
                    am.last_error = Set(Some(error.chars().take(500).collect()));
                    tracing::warn!(delivery = %row.id, attempt, error = %error, "webhook attempt failed");
                    more
                }
            };
            row = match am.update(&self.0.db).await {
                Ok(r) => r,
                Err(e) => {
                    tracing::error!(delivery = %row.id, error = %e, "recording webhook attempt failed");
                    return;
                }
            };
            if !retry {
                return;
            }
            let factor = 1u64 << (attempt - 1).clamp(0, 16);
            tokio::time::sleep(Duration::from_millis(cfg.backoff_ms.saturating_mul(factor))).await;
        }
    }

    /// One POST; `Err((status, error, retryable))`.
    async fn post(&self, row: &delivery::Model) -> Result<u16, (Option<u16>, String, bool)> {
        let now = self.0.clock.now();
        let ts = now.timestamp();
        let mut headers = vec![
            ("X-Webhook-Event", EVENT.to_owned()),
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
        let timeout = Duration::from_secs(self.0.cfg.timeout_secs.max(1));
        match self
            .0
            .transport
            .post(&row.url, &headers, row.body.clone(), timeout, now)
            .await
        {
            Ok(res) if (200..300).contains(&res.status) => Ok(res.status),
            Ok(res) => {
                let s = res.status;
                // A 4xx other than 408/429 (or a redirect, never followed) will not change
                // by retrying.
                let retryable = s >= 500 || s == 408 || s == 429;
                Err((Some(s), format!("status {s}"), retryable))
            }
            Err(PostError::Refused(e)) => Err((None, e, false)),
            Err(PostError::Failed(e)) => Err((None, e, true)),
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
        delivery::ActiveModel {
            id: Set(id),
            session_id: Set(s.id),
            url: Set(url),
            body: Set(body),
            signature: Set(signature),
            secret: Set(s.webhook_secret.clone()),
            status: Set("pending".into()),
            attempts: Set(0),
            last_error: Set(None),
            last_status: Set(None),
            created_at: Set(self.0.clock.now()),
            delivered_at: Set(None),
        }
        .insert(txn)
        .await?;
        Ok(Some(id))
    }

    fn completed(&self, recorded: Option<Uuid>) {
        let Some(id) = recorded else {
            return;
        };
        let this = self.clone();
        tokio::spawn(async move {
            match delivery::Entity::find_by_id(id).one(&this.0.db).await {
                Ok(Some(row)) => this.deliver(row).await,
                Ok(None) => {}
                // The row is stored: the next start-up resumes it.
                Err(e) => tracing::error!(delivery = %id, error = %e, "loading webhook failed"),
            }
        });
    }
}
