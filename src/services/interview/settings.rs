//! `[services.interview]`: the interview service's own settings and their defaults.

use crate::core::config::{self, LimitSettings};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct InterviewSettings {
    pub enabled: bool,
    pub bind: String,
    /// Public address of this service; interview_url is `{public_url}/interview/{token}`.
    pub public_url: String,
    /// Calling backends send it as `X-API-Key` to create sessions.
    pub api_key: String,
    /// Sent as `X-Admin-Key` to delete sessions.
    pub admin_key: String,
    /// A session can be started or answered until this long after creation.
    pub session_ttl_hours: i64,
    pub default_max_questions: i32,
    /// Upper bound accepted for max_questions (lower bound 1).
    pub max_questions_limit: i32,
    pub default_time_limit_minutes: i32,
    /// Upper bound accepted for time_limit_minutes (lower bound 1).
    pub time_limit_minutes_limit: i32,
    /// How often a running session reads the clock for its time limit.
    pub timer_tick_ms: u64,
    /// A session actor without a running timer stops after this long idle.
    pub actor_idle_secs: u64,
    pub webhook: InterviewWebhookSettings,
    /// Each limit given in part keeps its default for the rest.
    #[serde(deserialize_with = "config::limits_over_defaults")]
    pub rate_limits: InterviewRateLimits,
}

/// Per client address: answers and onboarding messages each cost an AI call, the PDF a
/// render; everything else shares the default.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(default)]
pub struct InterviewRateLimits {
    pub answer: LimitSettings,
    pub onboarding_message: LimitSettings,
    pub report_pdf: LimitSettings,
    pub default: LimitSettings,
}

impl Default for InterviewRateLimits {
    fn default() -> Self {
        Self {
            answer: LimitSettings::new(120, 60),
            onboarding_message: LimitSettings::new(120, 60),
            report_pdf: LimitSettings::new(30, 60),
            default: LimitSettings::new(1200, 60),
        }
    }
}

impl Default for InterviewSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            bind: "127.0.0.1:8083".into(),
            public_url: "http://127.0.0.1:8083".into(),
            api_key: "dev-interview-api-key".into(),
            admin_key: "dev-interview-admin-key".into(),
            session_ttl_hours: 168,
            default_max_questions: 8,
            max_questions_limit: 50,
            default_time_limit_minutes: 30,
            time_limit_minutes_limit: 240,
            timer_tick_ms: 500,
            actor_idle_secs: 300,
            webhook: InterviewWebhookSettings::default(),
            rate_limits: InterviewRateLimits::default(),
        }
    }
}

/// Completion webhook delivery, on messaging's retry rules (`switchboard_actors::backoff`):
/// every non-2xx answer and transport error is retried after base × factorⁿ⁻¹ seconds
/// (capped, ± jitter, never sooner than a capped Retry-After), `max_attempts` in all.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct InterviewWebhookSettings {
    /// Completion webhooks may reach loopback and private addresses (a backend on a private
    /// network); messaging's customers' webhooks have their own switch.
    pub allow_private_urls: bool,
    pub max_attempts: i32,
    pub base_delay_secs: i64,
    pub factor: i64,
    pub max_delay_secs: i64,
    pub jitter: f64,
    pub max_retry_after_secs: i64,
    pub timeout_secs: u64,
}

impl Default for InterviewWebhookSettings {
    fn default() -> Self {
        Self {
            allow_private_urls: false,
            max_attempts: 10,
            base_delay_secs: 30,
            factor: 4,
            max_delay_secs: 6 * 3600,
            jitter: 0.1,
            max_retry_after_secs: 24 * 3600,
            timeout_secs: 30,
        }
    }
}
