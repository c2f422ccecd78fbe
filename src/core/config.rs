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
    pub realtime: RealtimeSettings,
    pub retention: RetentionSettings,
    pub jobs: JobsSettings,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct ServerSettings {
    /// `development`, `production` or unset. Unless `development`, a non-loopback bind
    /// refuses weak secrets and sandbox switches ([`Settings::check`]).
    pub environment: String,
    pub version: String,
    /// Peers (addresses or CIDRs) whose `X-Forwarded-For` is believed; empty: none.
    pub trusted_proxies: Vec<String>,
    /// How long in-flight requests may finish after SIGINT/SIGTERM.
    pub shutdown_timeout_secs: u64,
}

impl Default for ServerSettings {
    fn default() -> Self {
        Self {
            environment: String::new(),
            version: env!("CARGO_PKG_VERSION").into(),
            trusted_proxies: Vec::new(),
            shutdown_timeout_secs: 10,
        }
    }
}

impl ServerSettings {
    pub fn is_production(&self) -> bool {
        self.environment.eq_ignore_ascii_case("production")
    }

    pub fn is_development(&self) -> bool {
        self.environment.eq_ignore_ascii_case("development")
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
    /// Wrong OTP codes one phone may enter over a rolling 24 hours (across codes and
    /// purposes); then verification for that phone answers OTP_LOCKED until the oldest
    /// counted failure is 24 hours old.
    pub otp_failed_per_day: i64,
    pub temp_token_ttl_secs: i64,
    pub kyc_url_ttl_secs: i64,
    pub handle_cooldown_days: i64,
    pub hard_delete_after_days: i64,
    /// How often the background job purges accounts past their deletion grace period.
    pub purge_interval_secs: u64,
    /// The built-in KYC verifier lets users verify themselves: a sandbox. A non-loopback
    /// bind refuses it unless this says so (or environment = "development").
    pub kyc_sandbox: bool,
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
            otp_failed_per_day: 10,
            temp_token_ttl_secs: 600,
            kyc_url_ttl_secs: 1800,
            handle_cooldown_days: 30,
            hard_delete_after_days: 30,
            purge_interval_secs: 3600,
            kyc_sandbox: false,
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
    /// Customers' webhooks may reach loopback and private addresses (local trials only).
    pub allow_private_urls: bool,
    pub timeout_secs: u64,
    pub deactivate_after: i32,
    pub max_attempts: i32,
    pub base_delay_secs: i64,
    pub factor: i64,
    pub max_delay_secs: i64,
    pub jitter: f64,
    pub max_retry_after_secs: i64,
    pub idle_stop_secs: u64,
    /// How often (across all nodes) endpoints with pending deliveries are revived.
    pub sweep_interval_secs: u64,
}

impl Default for WebhookDeliverySettings {
    fn default() -> Self {
        Self {
            allow_private_urls: false,
            timeout_secs: 30,
            deactivate_after: 10,
            max_attempts: 10,
            base_delay_secs: 30,
            factor: 4,
            max_delay_secs: 6 * 3600,
            jitter: 0.1,
            max_retry_after_secs: 24 * 3600,
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
    /// Each refresh token's life from its own issue; rotation starts a new one.
    pub refresh_ttl_days: i64,
    /// Longest a session may last however often it refreshes; 0 = no limit.
    pub session_max_days: i64,
}

pub const DEV_JWT_SECRET: &str = "dev-only";

impl Default for AuthSettings {
    fn default() -> Self {
        Self {
            jwt_secret: DEV_JWT_SECRET.into(),
            access_ttl_secs: 900,
            refresh_ttl_days: 30,
            session_max_days: 0,
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

/// Socket.IO settings shared by every service that serves `/socket.io/`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct RealtimeSettings {
    /// Under sustained socket load a worker gathers I/O for this long before
    /// its next sweep (src/realtime/pacing.rs); 0 turns it off, at most
    /// [`MAX_COALESCE_WINDOW_US`].
    pub coalesce_window_us: u64,
    /// Engine.IO connections this process serves at once; more are refused
    /// with 503.
    pub max_connections: usize,
    /// Connections from one client address at once; more are refused with 429.
    pub max_connections_per_ip: usize,
    /// Seconds a connection may stay open before the service admits it
    /// (interview: `join_session` with a valid token); 0 turns it off.
    pub admission_timeout_secs: u64,
    /// Packets waiting for one slow client before it is disconnected.
    pub max_outbound_queue: usize,
    /// Event handlers of one connection running at once; a client that sends
    /// more is disconnected.
    pub max_handlers_in_flight: usize,
}

/// Every request on a pacing worker may wait this long per wake-up, so more
/// than a few milliseconds would be felt (and would eat into ping timeouts).
pub const MAX_COALESCE_WINDOW_US: u64 = 5_000;

impl Default for RealtimeSettings {
    fn default() -> Self {
        // The same limits as `realtime::SocketIoConfig::default()`, plus admission.
        Self {
            coalesce_window_us: 500,
            max_connections: 100_000,
            max_connections_per_ip: 1_000,
            admission_timeout_secs: 30,
            max_outbound_queue: 1_024,
            max_handlers_in_flight: 32,
        }
    }
}

/// The retention jobs (recurring jobs of the job queue) and how long spent rows are kept.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct RetentionSettings {
    /// How often each service's retention job runs (once per interval across all nodes).
    pub interval_secs: u64,
    /// Rotated refresh tokens, and every token of a revoked or expired session, are deleted
    /// this many days after rotation, revocation or expiry; until then reusing a rotated token
    /// still revokes its session.
    pub refresh_tokens_days: i64,
    /// Webhook delivery attempts (messaging delivery history) older than this are deleted.
    pub delivery_attempts_days: i64,
}

impl Default for RetentionSettings {
    fn default() -> Self {
        Self {
            interval_secs: 3600,
            refresh_tokens_days: 7,
            delivery_attempts_days: 30,
        }
    }
}

/// The durable job queue (`src/core/jobs`).
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct JobsSettings {
    /// How often (real time) a node looks for due jobs besides being woken by its own
    /// enqueues and timers: the delay before it sees another node's work.
    pub poll_interval_ms: u64,
    /// How long a claim lasts; renewed while the job runs, so it lapses only when its node
    /// is gone, and then another node retakes the job.
    pub lease_secs: u64,
    /// Attempts of a job that does not set its own, before it is `dead`.
    pub max_attempts: i32,
    /// Retry delay after the n-th failure: base × 2ⁿ⁻¹ seconds, capped, minus up to half
    /// of it at random.
    pub backoff_base_secs: u64,
    pub backoff_max_secs: u64,
    /// Jobs one node runs at once.
    pub concurrency: usize,
    /// Finished (`done`) jobs are deleted this many days after they finished; `dead` ones
    /// stay for an operator.
    pub keep_done_days: i64,
}

impl JobsSettings {
    fn validate(&self) -> Result<(), ConfigError> {
        let too_small = [
            ("poll_interval_ms", self.poll_interval_ms < 10, "10"),
            ("lease_secs", self.lease_secs < 1, "1"),
            ("max_attempts", self.max_attempts < 1, "1"),
            ("backoff_base_secs", self.backoff_base_secs < 1, "1"),
            (
                "backoff_max_secs",
                self.backoff_max_secs < self.backoff_base_secs,
                "backoff_base_secs",
            ),
            ("concurrency", self.concurrency < 1, "1"),
            ("keep_done_days", self.keep_done_days < 1, "1"),
        ];
        match too_small.into_iter().find(|(_, bad, _)| *bad) {
            Some((name, _, min)) => Err(ConfigError::Invalid(format!(
                "jobs.{name} must be at least {min}"
            ))),
            None => Ok(()),
        }
    }
}

impl Default for JobsSettings {
    fn default() -> Self {
        Self {
            poll_interval_ms: 1000,
            lease_secs: 60,
            max_attempts: 10,
            backoff_base_secs: 10,
            backoff_max_secs: 3600,
            concurrency: 16,
            keep_done_days: 7,
        }
    }
}

/// Shortest secret accepted once the process is reachable from other machines.
pub const MIN_SECRET_BYTES: usize = 32;

/// Whether `bind` (`host:port`) listens on loopback only.
fn is_loopback_bind(bind: &str) -> bool {
    if let Ok(addr) = bind.parse::<std::net::SocketAddr>() {
        return addr.ip().is_loopback();
    }
    bind.rsplit_once(':')
        .is_some_and(|(host, _)| host.eq_ignore_ascii_case("localhost"))
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
        // The start-up guard runs in Application::build, once `--only` has been applied.
        settings.validate()?;
        Ok(settings)
    }

    /// Refuses invalid settings, then settings unsafe for where the enabled services
    /// listen ([`Self::unsafe_keys`]); `Application::build` runs it after `--only`.
    pub fn check(&self) -> Result<(), ConfigError> {
        self.validate()?;
        let bad = self.unsafe_keys();
        if bad.is_empty() {
            Ok(())
        } else {
            Err(ConfigError::Unsafe(format!(
                "{} (set them, or environment = \"development\" for a development machine)",
                bad.join("; ")
            )))
        }
    }

    /// Values no deployment can use.
    fn validate(&self) -> Result<(), ConfigError> {
        for (name, secs) in [
            ("retention.interval_secs", self.retention.interval_secs),
            (
                "services.identity.purge_interval_secs",
                self.services.identity.purge_interval_secs,
            ),
        ] {
            if secs == 0 {
                return Err(ConfigError::Invalid(format!("{name} must be at least 1")));
            }
        }
        self.jobs.validate()?;
        if self.realtime.coalesce_window_us > MAX_COALESCE_WINDOW_US {
            return Err(ConfigError::Invalid(format!(
                "realtime.coalesce_window_us is at most {MAX_COALESCE_WINDOW_US}"
            )));
        }
        let r = &self.realtime;
        for (name, value) in [
            ("max_connections", r.max_connections),
            ("max_connections_per_ip", r.max_connections_per_ip),
            ("max_outbound_queue", r.max_outbound_queue),
            ("max_handlers_in_flight", r.max_handlers_in_flight),
        ] {
            if value == 0 {
                return Err(ConfigError::Invalid(format!(
                    "realtime.{name} must be at least 1"
                )));
            }
        }
        crate::core::client::TrustedProxies::parse(&self.server.trusted_proxies)
            .map_err(ConfigError::Invalid)?;
        Ok(())
    }

    /// The keys that make these settings unsafe: in production always, and whenever an
    /// enabled service is reachable from beyond this machine — it listens beyond loopback, or
    /// a reverse proxy forwards to it (`trusted_proxies` names one) — unless environment =
    /// "development" is set.
    fn unsafe_keys(&self) -> Vec<String> {
        let s = &self.services;
        let listeners = [
            (s.marketplace.enabled, &s.marketplace.bind),
            (s.identity.enabled, &s.identity.bind),
            (s.interview.enabled, &s.interview.bind),
            (s.messaging.enabled, &s.messaging.bind),
            (s.advertising.enabled, &s.advertising.bind),
        ];
        let exposed = !self.server.trusted_proxies.is_empty()
            || listeners
                .iter()
                .any(|(on, bind)| *on && !is_loopback_bind(bind));
        if self.server.is_development() || !(exposed || self.server.is_production()) {
            return Vec::new();
        }
        let mut bad = Vec::new();
        let mut secret = |key: &str, value: &str| {
            if value.starts_with("dev-") || value.len() < MIN_SECRET_BYTES {
                bad.push(format!(
                    "{key} is a development default, empty or shorter than {MIN_SECRET_BYTES} bytes"
                ));
            }
        };
        secret("auth.jwt_secret", &self.auth.jwt_secret);
        if s.interview.enabled {
            secret("services.interview.api_key", &s.interview.api_key);
            secret("services.interview.admin_key", &s.interview.admin_key);
        }
        if s.messaging.enabled {
            secret("providers.sms.auth_token", &self.providers.sms.auth_token);
        }
        for (on, key) in [
            (
                s.interview.enabled && s.interview.webhook.allow_private_urls,
                "services.interview.webhook.allow_private_urls",
            ),
            (
                s.messaging.enabled && s.messaging.webhooks.allow_private_urls,
                "services.messaging.webhooks.allow_private_urls",
            ),
        ] {
            if on {
                bad.push(format!("{key} is on"));
            }
        }
        if s.identity.enabled && !s.identity.kyc_sandbox {
            bad.push(
                "services.identity.kyc_sandbox is off but the built-in KYC verifier lets \
                 users verify themselves"
                    .into(),
            );
        }
        bad
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

    fn exposed() -> Settings {
        let mut s = Settings::default();
        s.services.identity.bind = "0.0.0.0:0".into();
        s
    }

    fn fix_secrets(s: &mut Settings) {
        s.auth.jwt_secret = "j".repeat(MIN_SECRET_BYTES);
        s.services.interview.api_key = "a".repeat(MIN_SECRET_BYTES);
        s.services.interview.admin_key = "b".repeat(MIN_SECRET_BYTES);
        s.providers.sms.auth_token = "c".repeat(MIN_SECRET_BYTES);
        s.services.identity.kyc_sandbox = true;
    }

    #[test]
    fn exposed_binds_refuse_weak_settings() {
        assert!(Settings::default().check().is_ok(), "loopback is fine");
        let mut s = exposed();
        s.services.interview.webhook.allow_private_urls = true;
        s.services.messaging.webhooks.allow_private_urls = true;
        let Err(ConfigError::Unsafe(msg)) = s.check() else {
            panic!("refused")
        };
        for key in [
            "auth.jwt_secret",
            "services.interview.api_key",
            "services.interview.admin_key",
            "providers.sms.auth_token",
            "services.interview.webhook.allow_private_urls",
            "services.messaging.webhooks.allow_private_urls",
            "services.identity.kyc_sandbox",
        ] {
            assert!(msg.contains(key), "{key} named in {msg}");
        }
        s.server.environment = "development".into();
        assert!(s.check().is_ok());
        let mut s = exposed();
        fix_secrets(&mut s);
        assert!(s.check().is_ok());
        s.auth.jwt_secret = "x".repeat(MIN_SECRET_BYTES - 1);
        assert!(s.check().is_err(), "31 bytes is too short");
    }

    #[test]
    fn production_refuses_the_dev_secret() {
        let mut s = Settings::default();
        s.server.environment = "production".into();
        assert!(s.check().is_err());
        fix_secrets(&mut s);
        assert!(s.check().is_ok());
    }

    #[test]
    fn a_reverse_proxy_in_front_counts_as_exposed() {
        let mut s = Settings::default();
        s.server.trusted_proxies = vec!["127.0.0.1".into()];
        let Err(ConfigError::Unsafe(msg)) = s.check() else {
            panic!("loopback behind a proxy is still reachable from outside")
        };
        assert!(msg.contains("auth.jwt_secret"), "{msg}");
        fix_secrets(&mut s);
        assert!(s.check().is_ok());
    }

    #[test]
    fn periodic_intervals_are_at_least_a_second() {
        let mut s = Settings::default();
        s.retention.interval_secs = 0;
        assert!(matches!(s.check(), Err(ConfigError::Invalid(_))));
        let mut s = Settings::default();
        s.services.identity.purge_interval_secs = 0;
        assert!(matches!(s.check(), Err(ConfigError::Invalid(_))));
    }

    #[test]
    fn job_queue_settings_are_checked() {
        let mut s = Settings::default();
        s.jobs.backoff_max_secs = s.jobs.backoff_base_secs - 1;
        let Err(ConfigError::Invalid(msg)) = s.check() else {
            panic!("refused")
        };
        assert!(msg.contains("jobs.backoff_max_secs"), "{msg}");
        let mut s = Settings::default();
        s.jobs.lease_secs = 0;
        assert!(matches!(s.check(), Err(ConfigError::Invalid(_))));
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
