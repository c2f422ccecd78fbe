//! `[services.messaging]`: the messaging service's own settings and their defaults.

use crate::core::config::{self, LimitSettings};
use crate::core::webhook_settings::WebhookSettings;
use serde::{Deserialize, Serialize};
use std::ops::{Deref, DerefMut};

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct MessagingSettings {
    pub enabled: bool,
    pub bind: String,
    /// The address carriers call; the carrier signature is computed over it.
    pub public_url: String,
    pub mail_domain: String,
    /// Lifetime of the bearer JWT from POST /api/v1/auth/token.
    pub token_ttl_secs: i64,
    /// Longest SMS text, in characters (Unicode scalar values).
    pub max_sms_chars: usize,
    pub max_whatsapp_chars: usize,
    pub max_voice_chars: usize,
    pub max_email_chars: usize,
    pub max_bulk_recipients: usize,
    /// Most `{{placeholders}}` one bulk template field may hold (checked before rendering).
    pub max_template_placeholders: usize,
    /// Most text one bulk request may render over all its recipients, in bytes.
    pub max_bulk_rendered_bytes: usize,
    /// Webhooks one workspace may have (active or not).
    pub max_webhooks_per_workspace: u64,
    /// credit.low threshold given to new workspaces, in credits.
    pub default_low_credit_threshold: f64,
    /// The outbox sandboxes report delivery themselves, so the whole cycle runs locally.
    pub sandbox_delivery_reports: bool,
    /// How long a node's claim on a message lasts while it hands it to its provider; a claim
    /// left by a node that died is retaken (with a look-up at the provider) after it.
    pub claim_secs: u64,
    /// Most messages one dispatch run claims and hands over together (their claims and
    /// outcomes commit once per batch), and most delivery reports applied in one transaction.
    pub dispatch_batch: usize,
    /// A message `sent` for longer than this is stale: reconciliation asks its provider.
    pub stale_sent_after_secs: u64,
    /// How often (across all nodes) stale messages are reconciled.
    pub reconcile_interval_secs: u64,
    /// How long an Idempotency-Key is remembered.
    pub idempotency_ttl_hours: i64,
    pub default_deliveries_limit: u64,
    pub max_deliveries_limit: u64,
    pub costs: MessagingCosts,
    /// Each limit given in part keeps its default for the rest.
    #[serde(deserialize_with = "config::limits_over_defaults")]
    pub rate_limits: MessagingRateLimits,
    pub webhooks: WebhookDeliverySettings,
}

impl Default for MessagingSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            bind: "127.0.0.1:8084".into(),
            public_url: "http://127.0.0.1:8084".into(),
            mail_domain: "mail.switchboard.local".into(),
            token_ttl_secs: 3600,
            max_sms_chars: 1600,
            max_whatsapp_chars: 4096,
            max_voice_chars: 3000,
            max_email_chars: 512 * 1024,
            max_bulk_recipients: 1000,
            max_template_placeholders: 256,
            max_bulk_rendered_bytes: 64 * 1024 * 1024,
            max_webhooks_per_workspace: 20,
            default_low_credit_threshold: 10.0,
            sandbox_delivery_reports: true,
            claim_secs: 120,
            dispatch_batch: 50,
            stale_sent_after_secs: 600,
            reconcile_interval_secs: 60,
            idempotency_ttl_hours: 24,
            default_deliveries_limit: 50,
            max_deliveries_limit: 1000,
            costs: MessagingCosts::default(),
            rate_limits: MessagingRateLimits::default(),
            webhooks: WebhookDeliverySettings::default(),
        }
    }
}

/// Prices in hundredths of a credit.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct MessagingCosts {
    pub sms_segment: i64,
    pub email: i64,
    pub whatsapp: i64,
    pub voice: i64,
}

impl Default for MessagingCosts {
    fn default() -> Self {
        Self {
            sms_segment: 100,
            email: 10,
            whatsapp: 50,
            voice: 200,
        }
    }
}

/// Per-workspace limits (per client address for unauthenticated routes).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(default)]
pub struct MessagingRateLimits {
    pub send: LimitSettings,
    pub bulk: LimitSettings,
    pub token: LimitSettings,
    pub default: LimitSettings,
}

impl Default for MessagingRateLimits {
    fn default() -> Self {
        Self {
            send: LimitSettings::new(100, 1),
            bulk: LimitSettings::new(10, 300),
            token: LimitSettings::new(30, 60),
            default: LimitSettings::new(300, 60),
        }
    }
}

/// Delivery of customer webhooks: what they may reach and the retry schedule
/// (`core::webhook_settings`, whose keys this section holds), deactivation and the actors'
/// timings.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct WebhookDeliverySettings {
    #[serde(flatten)]
    pub webhook: WebhookSettings,
    pub deactivate_after: i32,
    pub idle_stop_secs: u64,
    /// How often (across all nodes) endpoints with pending deliveries are revived.
    pub sweep_interval_secs: u64,
}

/// The shared keys read as this section's own (`webhooks.max_attempts`), as before they were
/// shared.
impl Deref for WebhookDeliverySettings {
    type Target = WebhookSettings;
    fn deref(&self) -> &WebhookSettings {
        &self.webhook
    }
}

impl DerefMut for WebhookDeliverySettings {
    fn deref_mut(&mut self) -> &mut WebhookSettings {
        &mut self.webhook
    }
}

impl Default for WebhookDeliverySettings {
    fn default() -> Self {
        Self {
            webhook: WebhookSettings::default(),
            deactivate_after: 10,
            idle_stop_secs: 300,
            sweep_interval_secs: 60,
        }
    }
}
