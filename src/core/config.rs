//! Layered configuration: `config.toml` (or `--config PATH`), then `SWITCHBOARD__SECTION__KEY`
//! environment variables. Every limit a service enforces is read from here.

use figment::providers::{Env, Format, Toml};
use figment::Figment;
use serde::Deserialize;
use std::path::Path;

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default)]
pub struct Settings {
    pub server: ServerSettings,
    pub database: DatabaseSettings,
    pub services: ServicesSettings,
    pub auth: AuthSettings,
    pub outbox: OutboxSettings,
    pub providers: ProvidersSettings,
    pub ai: AiSettings,
    pub webhooks: WebhookSettings,
    pub realtime: RealtimeSettings,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct ServerSettings {
    /// `development` or `production`; production refuses development-only secrets.
    pub environment: String,
    pub version: String,
    /// How long in-flight requests may finish after SIGINT/SIGTERM.
    pub shutdown_timeout_secs: u64,
}

impl Default for ServerSettings {
    fn default() -> Self {
        Self {
            environment: "development".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            shutdown_timeout_secs: 10,
        }
    }
}

impl ServerSettings {
    pub fn is_production(&self) -> bool {
        self.environment.eq_ignore_ascii_case("production")
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct DatabaseSettings {
    pub url: String,
    pub max_connections: u32,
}

impl Default for DatabaseSettings {
    fn default() -> Self {
        Self {
            url: "sqlite://data/switchboard.db?mode=rwc".into(),
            max_connections: 16,
        }
    }
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default)]
pub struct ServicesSettings {
    pub marketplace: ListenerSettings,
    pub identity: IdentitySettings,
    pub interview: InterviewSettings,
    pub messaging: MessagingSettings,
    pub advertising: ListenerSettings,
}

/// Where a service listens; every service section carries these two keys.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct ListenerSettings {
    pub enabled: bool,
    pub bind: String,
}

impl Default for ListenerSettings {
    fn default() -> Self {
        Self {
            enabled: false,
            bind: "127.0.0.1:0".into(),
        }
    }
}

/// A fixed-window limit: `limit` requests per `window_secs`.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
pub struct LimitSettings {
    pub limit: u32,
    pub window_secs: u64,
}

impl LimitSettings {
    pub const fn new(limit: u32, window_secs: u64) -> Self {
        Self { limit, window_secs }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct IdentitySettings {
    pub enabled: bool,
    pub bind: String,
    /// Public address of this service, used for the built-in KYC page URL.
    pub public_url: String,
    pub otp_ttl_secs: i64,
    pub otp_max_attempts: i32,
    pub temp_token_ttl_secs: i64,
    pub kyc_url_ttl_secs: i64,
    pub handle_cooldown_days: i64,
    pub hard_delete_after_days: i64,
    /// How often the background job purges accounts past their deletion grace period.
    pub purge_interval_secs: u64,
    pub lockout: LockoutSettings,
    pub rate_limits: IdentityRateLimits,
}

impl Default for IdentitySettings {
    fn default() -> Self {
        Self {
            enabled: true,
            bind: "127.0.0.1:8082".into(),
            public_url: "http://127.0.0.1:8082".into(),
            otp_ttl_secs: 300,
            otp_max_attempts: 5,
            temp_token_ttl_secs: 600,
            kyc_url_ttl_secs: 1800,
            handle_cooldown_days: 30,
            hard_delete_after_days: 30,
            purge_interval_secs: 3600,
            lockout: LockoutSettings::default(),
            rate_limits: IdentityRateLimits::default(),
        }
    }
}

/// Sign-in lockout: after `max_failures` consecutive wrong PINs the account locks for
/// `base_lock_secs`, doubling with each further lock up to `max_lock_secs`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct LockoutSettings {
    pub max_failures: i32,
    pub base_lock_secs: i64,
    pub max_lock_secs: i64,
}

impl Default for LockoutSettings {
    fn default() -> Self {
        Self {
            max_failures: 5,
            base_lock_secs: 15 * 60,
            max_lock_secs: 24 * 3600,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct IdentityRateLimits {
    pub otp_send_per_phone: LimitSettings,
    pub otp_send_per_ip: LimitSettings,
    pub signin_per_phone: LimitSettings,
    pub signin_per_ip: LimitSettings,
    pub handle_check: LimitSettings,
    pub default: LimitSettings,
}

impl Default for IdentityRateLimits {
    fn default() -> Self {
        Self {
            otp_send_per_phone: LimitSettings::new(3, 3600),
            otp_send_per_ip: LimitSettings::new(20, 3600),
            signin_per_phone: LimitSettings::new(5, 900),
            signin_per_ip: LimitSettings::new(30, 900),
            handle_check: LimitSettings::new(30, 60),
            default: LimitSettings::new(100, 60),
        }
    }
}

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
        }
    }
}

/// Completion webhook delivery: attempts with exponential backoff from `backoff_ms`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct InterviewWebhookSettings {
    pub max_attempts: i32,
    pub backoff_ms: u64,
    pub timeout_secs: u64,
}

impl Default for InterviewWebhookSettings {
    fn default() -> Self {
        Self {
            max_attempts: 5,
            backoff_ms: 2000,
            timeout_secs: 30,
        }
    }
}

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
    /// Messages handed to providers at the same time.
    pub dispatch_concurrency: usize,
    /// How long an Idempotency-Key is remembered.
    pub idempotency_ttl_hours: i64,
    pub default_deliveries_limit: u64,
    pub max_deliveries_limit: u64,
    pub costs: MessagingCosts,
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
            dispatch_concurrency: 8,
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
#[derive(Debug, Clone, Deserialize)]
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

/// Delivery of customer webhooks: timeout, retry schedule, deactivation.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct WebhookDeliverySettings {
    pub timeout_secs: u64,
    pub deactivate_after: i32,
    pub max_attempts: i32,
    pub base_delay_secs: i64,
    pub factor: i64,
    pub max_delay_secs: i64,
    pub jitter: f64,
    pub max_retry_after_secs: i64,
    pub poll_interval_ms: u64,
    pub idle_stop_secs: u64,
    pub sweep_interval_secs: u64,
}

impl Default for WebhookDeliverySettings {
    fn default() -> Self {
        Self {
            timeout_secs: 30,
            deactivate_after: 10,
            max_attempts: 10,
            base_delay_secs: 30,
            factor: 4,
            max_delay_secs: 6 * 3600,
            jitter: 0.1,
            max_retry_after_secs: 24 * 3600,
            poll_interval_ms: 1000,
            idle_stop_secs: 300,
            sweep_interval_secs: 60,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct AuthSettings {
    pub jwt_secret: String,
    pub access_ttl_secs: i64,
    pub refresh_ttl_days: i64,
}

pub const DEV_JWT_SECRET: &str = "dev-only";

impl Default for AuthSettings {
    fn default() -> Self {
        Self {
            jwt_secret: DEV_JWT_SECRET.into(),
            access_ttl_secs: 900,
            refresh_ttl_days: 30,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct OutboxSettings {
    pub path: String,
}

impl Default for OutboxSettings {
    fn default() -> Self {
        Self {
            path: "data/outbox.jsonl".into(),
        }
    }
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default)]
pub struct ProvidersSettings {
    pub sms: SmsProviderSettings,
    pub email: EmailProviderSettings,
    pub whatsapp: WhatsAppProviderSettings,
    pub voice: VoiceProviderSettings,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct EmailProviderSettings {
    /// `outbox` (built-in sandbox) or `smtp`.
    pub provider: String,
    pub host: String,
    pub port: u16,
    pub username: String,
    pub password: String,
    /// `none`, `starttls` or `tls`.
    pub tls: String,
    pub timeout_secs: u64,
}

impl Default for EmailProviderSettings {
    fn default() -> Self {
        Self {
            provider: "outbox".into(),
            host: "127.0.0.1".into(),
            port: 25,
            username: String::new(),
            password: String::new(),
            tls: "starttls".into(),
            timeout_secs: 30,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct WhatsAppProviderSettings {
    /// `outbox` (built-in sandbox) or `cloud_api` (WhatsApp Cloud API).
    pub provider: String,
    pub base_url: String,
    pub api_version: String,
    pub phone_number_id: String,
    pub access_token: String,
}

impl Default for WhatsAppProviderSettings {
    fn default() -> Self {
        Self {
            provider: "outbox".into(),
            base_url: "https://graph.facebook.com".into(),
            api_version: "v21.0".into(),
            phone_number_id: String::new(),
            access_token: String::new(),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct VoiceProviderSettings {
    /// `outbox` (built-in sandbox) or `twilio` (Twilio-compatible Calls API).
    pub provider: String,
    pub base_url: String,
    pub account_sid: String,
    pub auth_token: String,
    pub from: String,
    /// Text-to-speech voice named in the TwiML `<Say>`.
    pub voice: String,
}

impl Default for VoiceProviderSettings {
    fn default() -> Self {
        Self {
            provider: "outbox".into(),
            base_url: "https://api.twilio.com".into(),
            account_sid: String::new(),
            auth_token: String::new(),
            from: "+15005550006".into(),
            voice: "alice".into(),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct SmsProviderSettings {
    /// `outbox` (built-in sandbox) or `twilio` (Twilio-compatible HTTP API).
    pub provider: String,
    pub base_url: String,
    pub account_sid: String,
    pub auth_token: String,
    pub from: String,
}

impl Default for SmsProviderSettings {
    fn default() -> Self {
        Self {
            provider: "outbox".into(),
            base_url: "https://api.twilio.com".into(),
            account_sid: String::new(),
            auth_token: "dev-carrier-token".into(),
            from: "+15005550006".into(),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct AiSettings {
    pub provider: String,
    pub base_url: String,
    pub api_key: String,
    pub model: String,
    pub timeout_secs: u64,
}

impl Default for AiSettings {
    fn default() -> Self {
        Self {
            provider: "builtin".into(),
            base_url: String::new(),
            api_key: String::new(),
            model: String::new(),
            timeout_secs: 20,
        }
    }
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default)]
pub struct WebhookSettings {
    pub allow_private_urls: bool,
}

/// Socket.IO settings shared by every service that serves `/socket.io/`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct RealtimeSettings {
    /// Under sustained socket load a worker gathers I/O for this long before
    /// its next sweep (src/realtime/pacing.rs); 0 turns it off, at most
    /// [`MAX_COALESCE_WINDOW_US`].
    pub coalesce_window_us: u64,
}

/// Every request on a pacing worker may wait this long per wake-up, so more
/// than a few milliseconds would be felt (and would eat into ping timeouts).
pub const MAX_COALESCE_WINDOW_US: u64 = 5_000;

impl Default for RealtimeSettings {
    fn default() -> Self {
        Self {
            coalesce_window_us: 500,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("configuration could not be read: {0}")]
    Read(#[from] Box<figment::Error>),
    #[error("refusing to start: {0}")]
    Unsafe(String),
    #[error("invalid setting: {0}")]
    Invalid(String),
}

impl Settings {
    /// Reads `path` when it exists (a missing file means defaults), then the environment.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let settings: Settings = Figment::new()
            .merge(Toml::file(path))
            .merge(Env::prefixed("SWITCHBOARD__").split("__"))
            .extract()
            .map_err(Box::new)?;
        settings.check()?;
        Ok(settings)
    }

    fn check(&self) -> Result<(), ConfigError> {
        if self.server.is_production() && self.auth.jwt_secret == DEV_JWT_SECRET {
            return Err(ConfigError::Unsafe(
                "auth.jwt_secret is the development secret; set SWITCHBOARD__AUTH__JWT_SECRET"
                    .into(),
            ));
        }
        let iv = &self.services.interview;
        if self.server.is_production()
            && iv.enabled
            && (iv.api_key.starts_with("dev-") || iv.admin_key.starts_with("dev-"))
        {
            return Err(ConfigError::Unsafe(
                "services.interview api_key/admin_key are development keys".into(),
            ));
        }
        if self.auth.jwt_secret.len() < 8 && self.server.is_production() {
            return Err(ConfigError::Unsafe("auth.jwt_secret is too short".into()));
        }
        if self.realtime.coalesce_window_us > MAX_COALESCE_WINDOW_US {
            return Err(ConfigError::Invalid(format!(
                "realtime.coalesce_window_us is at most {MAX_COALESCE_WINDOW_US}"
            )));
        }
        Ok(())
    }

    /// Keeps only the named services enabled (`--only a,b`).
    pub fn restrict_to(&mut self, only: &[String]) {
        let keep = |name: &str| only.iter().any(|o| o.eq_ignore_ascii_case(name));
        self.services.marketplace.enabled &= keep("marketplace");
        self.services.identity.enabled &= keep("identity");
        self.services.interview.enabled &= keep("interview");
        self.services.messaging.enabled &= keep("messaging");
        self.services.advertising.enabled &= keep("advertising");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_then_environment() {
        let dir = std::env::temp_dir().join(format!("sb-config-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("config.toml");
        std::fs::write(
            &path,
            "[services.identity]\nbind = \"127.0.0.1:9100\"\n[services.identity.rate_limits]\nsignin_per_phone = { limit = 7, window_secs = 60 }\n",
        )
        .unwrap();
        let s = Settings::load(&path).unwrap();
        assert_eq!(s.services.identity.bind, "127.0.0.1:9100");
        assert_eq!(
            s.services.identity.rate_limits.signin_per_phone,
            LimitSettings::new(7, 60)
        );
        assert_eq!(
            s.services.identity.otp_ttl_secs, 300,
            "unset keys keep defaults"
        );
        // The only test that touches SWITCHBOARD__ variables.
        std::env::set_var("SWITCHBOARD__SERVICES__IDENTITY__BIND", "127.0.0.1:9200");
        let s = Settings::load(&path).unwrap();
        std::env::remove_var("SWITCHBOARD__SERVICES__IDENTITY__BIND");
        assert_eq!(s.services.identity.bind, "127.0.0.1:9200");
        let mut only = s.clone();
        only.restrict_to(&["identity".into()]);
        assert!(only.services.identity.enabled && !only.services.messaging.enabled);
    }

    #[test]
    fn production_refuses_the_dev_secret() {
        let mut s = Settings::default();
        s.server.environment = "production".into();
        assert!(s.check().is_err());
        s.auth.jwt_secret = "a-long-and-random-production-secret".into();
        assert!(
            s.check().is_err(),
            "interview keys are still the development ones"
        );
        s.services.interview.api_key = "live-api-key-0123456789".into();
        s.services.interview.admin_key = "live-admin-key-0123456789".into();
        assert!(s.check().is_ok());
    }

    #[test]
    fn coalescing_window_is_bounded() {
        let mut s = Settings::default();
        s.realtime.coalesce_window_us = MAX_COALESCE_WINDOW_US;
        assert!(s.check().is_ok());
        s.realtime.coalesce_window_us = MAX_COALESCE_WINDOW_US + 1;
        assert!(matches!(s.check(), Err(ConfigError::Invalid(_))));
    }
}
