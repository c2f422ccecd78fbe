//! Layered configuration: `config.toml` (or `--config PATH`), then `SWITCHBOARD__SECTION__KEY`
//! environment variables ([`load`]). Here are the sections core reads and the start-up guard's
//! rules; each provider and each service owns the types of its own sections.

use figment::providers::{Env, Format, Toml};
use figment::Figment;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The sections every service shares through [`super::CoreContext`].
#[derive(Debug, Clone, Default)]
pub struct CoreSettings {
    pub server: ServerSettings,
    pub database: DatabaseSettings,
    pub auth: AuthSettings,
    pub realtime: RealtimeSettings,
    pub retention: RetentionSettings,
    pub jobs: JobsSettings,
    pub cluster: ClusterSettings,
    pub telemetry: TelemetrySettings,
    pub tls: TlsSettings,
}

/// How the process is watched (`[telemetry]`): its log format, the metrics listener and the
/// trace export.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct TelemetrySettings {
    /// `text` (for people) or `json` (one object per line, for a log pipeline).
    pub log_format: LogFormat,
    /// `host:port` of a listener serving only `GET /metrics`; empty: none.
    pub metrics_bind: String,
    /// OTLP/HTTP endpoint the traces are sent to (`http://collector:4318`; `/v1/traces` is
    /// added); empty: no traces.
    pub otlp_endpoint: String,
    /// The `service.name` the traces carry.
    pub service_name: String,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    #[default]
    Text,
    Json,
}

impl Default for TelemetrySettings {
    fn default() -> Self {
        Self {
            log_format: LogFormat::Text,
            metrics_bind: String::new(),
            otlp_endpoint: String::new(),
            service_name: "switchboard".into(),
        }
    }
}

impl TelemetrySettings {
    pub fn metrics_bind(&self) -> Option<&str> {
        let bind = self.metrics_bind.trim();
        (!bind.is_empty()).then_some(bind)
    }

    pub fn otlp_endpoint(&self) -> Option<&str> {
        let url = self.otlp_endpoint.trim();
        (!url.is_empty()).then_some(url)
    }
}

/// TLS of the connections this process opens (`core::tls`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct TlsSettings {
    /// A PEM bundle of CA certificates trusted besides the system's by every outbound TLS
    /// client (webhooks, providers' HTTP APIs, SMTP, Redis, the S3 store); empty: the
    /// system's alone.
    /// PostgreSQL takes its CA in the URL instead (`sslrootcert=`).
    pub extra_ca_file: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct ServerSettings {
    /// `development`, `production` or unset. Unless `development`, a non-loopback bind
    /// refuses weak secrets and sandbox switches ([`CoreSettings::guarded`]).
    pub environment: String,
    pub version: String,
    /// Peers (addresses or CIDRs) whose `X-Forwarded-For` is believed; empty: none.
    pub trusted_proxies: Vec<String>,
    /// How long in-flight requests may finish after SIGINT/SIGTERM.
    pub shutdown_timeout_secs: u64,
    /// Origins whose browser pages may call every service (`core::cors`): bare origins
    /// (`https://app.example.com`) or `"*"` for any; empty: none.
    pub cors_allowed_origins: Vec<String>,
    /// How long a browser may reuse a preflight answer.
    pub cors_max_age_secs: usize,
    /// Where this process keeps its own files: the node id (`core::node`).
    pub data_dir: String,
    /// HTTP worker threads per listener; 0: one per core, at most four.
    pub workers: usize,
}

impl Default for ServerSettings {
    fn default() -> Self {
        Self {
            environment: String::new(),
            version: env!("CARGO_PKG_VERSION").into(),
            trusted_proxies: Vec::new(),
            shutdown_timeout_secs: 10,
            cors_allowed_origins: Vec::new(),
            cors_max_age_secs: 3600,
            data_dir: "data".into(),
            workers: 0,
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

    /// Worker threads of each listener: the setting, or one per core up to four (each worker
    /// builds its own copy of the routes).
    pub fn workers(&self) -> usize {
        match self.workers {
            0 => std::thread::available_parallelism()
                .map_or(2, |n| n.get())
                .min(4),
            n => n,
        }
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

/// A fixed-window limit: `limit` requests per `window_secs`.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq)]
pub struct LimitSettings {
    pub limit: u32,
    pub window_secs: u64,
}

impl LimitSettings {
    pub const fn new(limit: u32, window_secs: u64) -> Self {
        Self { limit, window_secs }
    }
}

/// One limit as configured: a field left out keeps the service's default.
#[derive(Deserialize)]
struct PartialLimit {
    limit: Option<u32>,
    window_secs: Option<u64>,
}

/// `deserialize_with` of a service's `rate_limits`: its table of named limits read over the
/// service's own defaults (`T::default()`), field by field, so `general = { limit = 5 }`
/// or one environment variable (`…__RATE_LIMITS__GENERAL__LIMIT=5`) changes that field and
/// keeps the default window. A name the service does not have is ignored, as elsewhere.
pub fn limits_over_defaults<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + Serialize + DeserializeOwned,
{
    use serde::de::Error;
    let given = std::collections::BTreeMap::<String, PartialLimit>::deserialize(deserializer)?;
    let mut table = serde_json::to_value(T::default()).map_err(D::Error::custom)?;
    for (name, part) in given {
        let Some(limit) = table.get_mut(&name) else {
            continue;
        };
        if let Some(n) = part.limit {
            limit["limit"] = n.into();
        }
        if let Some(secs) = part.window_secs {
            limit["window_secs"] = secs.into();
        }
    }
    serde_json::from_value(table).map_err(D::Error::custom)
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
    /// Longest a cached session answer (live, ended, the account's roles) is used before the
    /// database is asked again. Changes made through this node invalidate at once; this bounds
    /// changes made elsewhere (another node before the cluster bus, an operator's CLI).
    pub session_cache_secs: u64,
    /// Sessions the cache holds at most (least recently used go first).
    pub session_cache_capacity: u64,
}

pub const DEV_JWT_SECRET: &str = "dev-only";

impl Default for AuthSettings {
    fn default() -> Self {
        Self {
            jwt_secret: DEV_JWT_SECRET.into(),
            access_ttl_secs: 900,
            refresh_ttl_days: 30,
            session_max_days: 0,
            session_cache_secs: 30,
            session_cache_capacity: 100_000,
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
    /// With `[cluster] redis_url`: the Redis channel prefix of each service's rooms (the
    /// `key` of a Node `@socket.io/redis-adapter` in the same fleet), by service name;
    /// a service not listed uses `switchboard/<service>`.
    pub adapter_keys: std::collections::BTreeMap<String, String>,
}

impl RealtimeSettings {
    /// The channel prefix of `service`'s rooms: its own, so that services in one process
    /// (each with its own `/` namespace) never hear each other's broadcasts.
    pub fn adapter_key(&self, service: &str) -> String {
        match self.adapter_keys.get(service).map(|k| k.trim()) {
            Some(key) if !key.is_empty() => key.to_owned(),
            _ => format!("switchboard/{service}"),
        }
    }
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
            adapter_keys: Default::default(),
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

/// Shortest secret accepted once the process is reachable from other machines.
pub const MIN_SECRET_BYTES: usize = 32;

/// Whether `bind` (`host:port`) listens on loopback only.
pub fn is_loopback_bind(bind: &str) -> bool {
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

/// Reads `path` when it exists (a missing file means defaults), then the environment, into
/// the whole configuration `T`.
pub fn load<T: DeserializeOwned>(path: &Path) -> Result<T, ConfigError> {
    Ok(Figment::new()
        .merge(Toml::file(path))
        .merge(Env::prefixed("SWITCHBOARD__").split("__"))
        .extract()
        .map_err(Box::new)?)
}

/// `Some(problem)` when `value` of `key` is no secret for a process reachable from elsewhere:
/// a development default, empty or too short.
pub fn weak_secret(key: &str, value: &str) -> Option<String> {
    (value.starts_with("dev-") || value.len() < MIN_SECRET_BYTES).then(|| {
        format!("{key} is a development default, empty or shorter than {MIN_SECRET_BYTES} bytes")
    })
}

/// `Some(problem)` when a switch that is only safe on a private machine is on.
pub fn unsafe_switch(key: &str, on: bool) -> Option<String> {
    on.then(|| format!("{key} is on"))
}

/// The start-up guard's verdict on the unsafe keys the core and each enabled service found.
pub fn refuse_unsafe(bad: Vec<String>) -> Result<(), ConfigError> {
    if bad.is_empty() {
        Ok(())
    } else {
        Err(ConfigError::Unsafe(format!(
            "{} (set them, or environment = \"development\" for a development machine)",
            bad.join("; ")
        )))
    }
}

/// Several nodes (`[cluster]`): without `redis_url` this process is the whole deployment and
/// keeps its counters in memory, as one node on SQLite does.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct ClusterSettings {
    /// `redis://host:port/db` of the Redis every node shares (rate-limit counters, the bus);
    /// empty: one node.
    pub redis_url: String,
    /// This node's name in the cluster; empty: generated at start.
    pub node_id: String,
    /// How long a node owns an actor (an interview session, a conversation, a webhook
    /// endpoint) without renewing: how soon another node takes over after it died.
    pub lease_secs: u64,
    /// How long a node waits for the owner of an actor to answer a forwarded command.
    pub forward_timeout_ms: u64,
}

impl Default for ClusterSettings {
    fn default() -> Self {
        Self {
            redis_url: String::new(),
            node_id: String::new(),
            lease_secs: 10,
            forward_timeout_ms: 10_000,
        }
    }
}

impl ClusterSettings {
    /// The Redis URL, when one is configured.
    pub fn redis(&self) -> Option<&str> {
        let url = self.redis_url.trim();
        (!url.is_empty()).then_some(url)
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
    /// Runs (a job, or a batch of one topic's jobs) one node has going at once.
    pub concurrency: usize,
    /// Runs of one batch topic (dispatch, delivery reports) one node has going at once. A
    /// batch already carries many jobs; more of them side by side only queue for SQLite's one
    /// write lock and push the API's writes to the back.
    pub batch_runs: usize,
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
            ("batch_runs", self.batch_runs < 1, "1"),
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
            batch_runs: 2,
            keep_done_days: 7,
        }
    }
}

impl CoreSettings {
    /// Values no deployment can use.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.retention.interval_secs == 0 {
            return Err(ConfigError::Invalid(
                "retention.interval_secs must be at least 1".into(),
            ));
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
        if let Some(problem) = (self.server.cors_allowed_origins.iter())
            .find_map(|origin| crate::core::cors::invalid_origin(origin))
        {
            return Err(ConfigError::Invalid(problem));
        }
        Ok(())
    }

    /// Whether the start-up guard applies to services listening on `binds`: in production
    /// always, and whenever one is reachable from beyond this machine — it listens beyond
    /// loopback, or a reverse proxy forwards to it (`trusted_proxies` names one) — unless
    /// environment = "development" is set.
    pub fn guarded<'a>(&self, mut binds: impl Iterator<Item = &'a str>) -> bool {
        let exposed =
            !self.server.trusted_proxies.is_empty() || binds.any(|bind| !is_loopback_bind(bind));
        !self.server.is_development() && (exposed || self.server.is_production())
    }

    /// The core's own keys the guard refuses.
    pub fn unsafe_keys(&self) -> Vec<String> {
        weak_secret("auth.jwt_secret", &self.auth.jwt_secret)
            .into_iter()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_service_has_its_own_adapter_key() {
        use figment::providers::{Format, Toml};
        let toml = "[adapter_keys]\ninterview = \"socket.io\"\nmarketplace = \" \"\n";
        let rt: RealtimeSettings = figment::Figment::from(Toml::string(toml))
            .extract()
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(rt.adapter_key("interview"), "socket.io");
        assert_eq!(rt.adapter_key("marketplace"), "switchboard/marketplace");
        assert_eq!(
            RealtimeSettings::default().adapter_key("marketplace-sandbox"),
            "switchboard/marketplace-sandbox"
        );
    }

    #[test]
    fn job_queue_settings_are_checked() {
        let mut s = CoreSettings::default();
        s.jobs.backoff_max_secs = s.jobs.backoff_base_secs - 1;
        let Err(ConfigError::Invalid(msg)) = s.validate() else {
            panic!("refused")
        };
        assert!(msg.contains("jobs.backoff_max_secs"), "{msg}");
        let mut s = CoreSettings::default();
        s.jobs.lease_secs = 0;
        assert!(matches!(s.validate(), Err(ConfigError::Invalid(_))));
    }

    #[test]
    fn exposure_decides_whether_the_guard_applies() {
        let s = CoreSettings::default();
        assert!(!s.guarded(["127.0.0.1:0", "localhost:80"].into_iter()));
        assert!(s.guarded(["127.0.0.1:0", "0.0.0.0:0"].into_iter()));
        let mut proxied = CoreSettings::default();
        proxied.server.trusted_proxies = vec!["127.0.0.1".into()];
        assert!(proxied.guarded(std::iter::empty()), "a proxy in front");
        let mut production = CoreSettings::default();
        production.server.environment = "production".into();
        assert!(production.guarded(["127.0.0.1:0"].into_iter()));
        let mut development = CoreSettings::default();
        development.server.environment = "development".into();
        assert!(!development.guarded(["0.0.0.0:0"].into_iter()));
    }

    #[test]
    fn weak_secrets_are_named() {
        assert!(weak_secret("k", "dev-whatever-long-enough-to-pass-the-length").is_some());
        assert!(weak_secret("k", &"x".repeat(MIN_SECRET_BYTES - 1)).is_some());
        assert!(weak_secret("k", &"x".repeat(MIN_SECRET_BYTES)).is_none());
        assert!(CoreSettings::default().unsafe_keys()[0].contains("auth.jwt_secret"));
    }

    #[test]
    fn retention_runs_at_least_every_second() {
        let mut s = CoreSettings::default();
        s.retention.interval_secs = 0;
        assert!(matches!(s.validate(), Err(ConfigError::Invalid(_))));
    }

    #[test]
    fn coalescing_window_is_bounded() {
        let mut s = CoreSettings::default();
        s.realtime.coalesce_window_us = MAX_COALESCE_WINDOW_US;
        assert!(s.validate().is_ok());
        s.realtime.coalesce_window_us = MAX_COALESCE_WINDOW_US + 1;
        assert!(matches!(s.validate(), Err(ConfigError::Invalid(_))));
    }
}
