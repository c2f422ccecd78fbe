//! `[services.interview]`: the interview service's own settings and their defaults.

use crate::core::config::{self, LimitSettings};
use crate::core::webhook_settings::WebhookSettings;
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
    /// Completion webhooks, on messaging's retry rules (`[services.interview.webhook]`).
    pub webhook: WebhookSettings,
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
            webhook: WebhookSettings::default(),
            rate_limits: InterviewRateLimits::default(),
        }
    }
}
