//! Completion webhooks. The delivery is a row before the first attempt; a worker task posts
//! it with `X-Webhook-Signature: sha256=<hex HMAC-SHA256(body, X-Webhook-Secret)>`,
//! retrying with exponential backoff; pending rows are resumed at start-up.

use super::domain::is_private_ip;
use crate::core::clock::SharedClock;
use crate::core::config::{InterviewSettings, InterviewWebhookSettings};
use crate::core::secrets::hmac_sha256_hex;
use crate::core::CoreContext;
use async_trait::async_trait;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, DatabaseConnection, EntityTrait, IntoActiveModel, QueryFilter,
    Set,
};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use switchboard_actors::interview::{CompletionHook, Report, ReportSummary};
use switchboard_entities::interview::{session, webhook_delivery as delivery};
use uuid::Uuid;

pub const SIGNATURE_HEADER: &str = "X-Webhook-Signature";
pub const EVENT: &str = "interview.completed";

#[derive(Clone)]
pub struct Webhooks(Arc<Inner>);

struct Inner {
    db: DatabaseConnection,
    http: reqwest::Client,
    clock: SharedClock,
    cfg: InterviewWebhookSettings,
    allow_private: bool,
}

impl Webhooks {
    pub fn new(core: &CoreContext, cfg: &InterviewSettings) -> Self {
        Self(Arc::new(Inner {
            db: core.db.clone(),
            http: core.http.clone(),
            clock: core.clock.clone(),
            cfg: cfg.webhook.clone(),
            allow_private: core.settings.webhooks.allow_private_urls,
        }))
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

    /// Why the URL may not be called, if it may not: a private address when those are off.
    async fn refused(&self, url: &str) -> Option<String> {
        if self.0.allow_private {
            return None;
        }
        let u = url::Url::parse(url).ok()?;
        let host = u.host_str()?.trim_matches(['[', ']']).to_owned();
        let port = u.port_or_known_default().unwrap_or(80);
        let resolved = tokio::net::lookup_host((host.as_str(), port))
            .await
            .map(|a| a.collect::<Vec<_>>());
        match resolved {
            Ok(addrs) => {
                if addrs.iter().any(|a| is_private_ip(a.ip())) {
                    Some(format!("{host} resolves to a private or loopback address"))
                } else {
                    None
                }
            }
            Err(e) => Some(format!("cannot resolve {host}: {e}")),
        }
    }

    async fn deliver(self, row: delivery::Model) {
        let cfg = &self.0.cfg;
        let mut row = row;
        loop {
            let attempt = row.attempts + 1;
            let outcome = match self.refused(&row.url).await {
                Some(reason) => Err((None, reason, false)),
                None => self.post(&row).await,
            };
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
        let mut req = self
            .0
            .http
            .post(&row.url)
            .timeout(Duration::from_secs(self.0.cfg.timeout_secs.max(1)))
            .header("Content-Type", "application/json")
            .header("X-Webhook-Event", EVENT)
            .header("X-Webhook-Delivery", row.id.to_string())
            .body(row.body.clone());
        if let Some(sig) = &row.signature {
            req = req.header(SIGNATURE_HEADER, format!("sha256={sig}"));
        }
        match req.send().await {
            Ok(res) if res.status().is_success() => Ok(res.status().as_u16()),
            Ok(res) => {
                let s = res.status().as_u16();
                // A 4xx other than 408/429 will not change by retrying.
                let retryable = s >= 500 || s == 408 || s == 429;
                Err((Some(s), format!("status {s}"), retryable))
            }
            Err(e) => Err((None, e.without_url().to_string(), true)),
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
    async fn completed(&self, s: &session::Model, report: &Report) {
        let Some(url) = s.webhook_url.clone() else {
            return;
        };
        let body = payload(s, report);
        let signature = s
            .webhook_secret
            .as_ref()
            .map(|secret| hmac_sha256_hex(secret.as_bytes(), body.as_bytes()));
        let row = delivery::ActiveModel {
            id: Set(Uuid::new_v4()),
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
        .insert(&self.0.db)
        .await;
        match row {
            Ok(row) => {
                tokio::spawn(self.clone().deliver(row));
            }
            Err(e) => tracing::error!(session = %s.id, error = %e, "queueing webhook failed"),
        }
    }
}
