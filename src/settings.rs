//! The whole configuration file, as `core::config::load` reads it: the core's sections, the
//! providers' (`[outbox]`, `[providers.*]`, `[ai]`) and one `[services.<name>]` per registered
//! service, each typed by its owner.

use crate::core::config::{
    self, AuthSettings, ClusterSettings, ConfigError, CoreSettings, DatabaseSettings, JobsSettings,
    RealtimeSettings, RetentionSettings, ServerSettings, TelemetrySettings, TlsSettings,
};
use crate::providers::settings::{AiSettings, OutboxSettings, ProvidersSettings};
use crate::providers::Providers;
use crate::services::ServicesSettings;
use serde::Deserialize;
use std::collections::BTreeMap;
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
    pub cluster: ClusterSettings,
    pub telemetry: TelemetrySettings,
    pub tls: TlsSettings,
}

impl Settings {
    /// Reads `path` when it exists (a missing file means defaults), then the environment.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let settings: Self = config::load(path)?;
        // The start-up guard runs in Application::build, once `--only` has been applied.
        settings.validate()?;
        for name in settings.enabled_but_not_built(config::load(path)?) {
            tracing::warn!(service = %name, "enabled in config but not built yet; skipped");
        }
        Ok(settings)
    }

    /// `[telemetry]` alone, read before logging starts; unreadable: defaults (the whole
    /// file's reading reports the error).
    pub fn telemetry(path: &Path) -> TelemetrySettings {
        #[derive(Deserialize, Default)]
        #[serde(default)]
        struct Only {
            telemetry: TelemetrySettings,
        }
        config::load::<Only>(path)
            .map(|only| only.telemetry)
            .unwrap_or_default()
    }

    /// The sections that turn on a service no one has built yet.
    fn enabled_but_not_built(&self, sections: Sections) -> Vec<String> {
        sections
            .services
            .into_iter()
            .filter(|(name, section)| section.enabled && !self.is_built(name))
            .map(|(name, _)| name)
            .collect()
    }

    fn is_built(&self, name: &str) -> bool {
        self.services
            .registered()
            .iter()
            .any(|service| service.name().eq_ignore_ascii_case(name))
    }

    /// The sections every service shares through the `CoreContext`.
    pub fn core(&self) -> CoreSettings {
        CoreSettings {
            server: self.server.clone(),
            database: self.database.clone(),
            auth: self.auth.clone(),
            realtime: self.realtime.clone(),
            retention: self.retention.clone(),
            jobs: self.jobs.clone(),
            cluster: self.cluster.clone(),
            telemetry: self.telemetry.clone(),
            tls: self.tls.clone(),
        }
    }

    /// Values no deployment can use, in the core's sections and in every service's.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.core().validate()?;
        self.services
            .registered()
            .iter()
            .try_for_each(|service| service.validate())
    }

    /// Refuses invalid settings, then settings unsafe for where the enabled services listen:
    /// the core's keys and those each enabled service names. `Application::build` runs it
    /// after `--only`.
    pub fn check(&self, providers: &Providers) -> Result<(), ConfigError> {
        self.validate()?;
        let core = self.core();
        let registered = self.services.registered();
        let running: Vec<_> = registered
            .iter()
            .filter(|service| service.listener().enabled)
            .collect();
        if !core.guarded(running.iter().map(|service| service.listener().bind)) {
            return Ok(());
        }
        let mut bad = core.unsafe_keys();
        for service in running {
            bad.extend(service.unsafe_keys(providers));
        }
        config::refuse_unsafe(bad)
    }

    /// Keeps only the named services enabled (`serve --only a,b`); a name no built service
    /// has is ignored with a warning.
    pub fn restrict_to(&mut self, only: &[String]) {
        for name in only.iter().filter(|name| !self.is_built(name)) {
            tracing::warn!(service = %name, "not built yet; skipped");
        }
        self.services.restrict_to(only);
    }
}

/// Whether each `[services.<name>]` section turns its service on, registered or not: the
/// sections no built service has (a misspelt name) are read only for this, to warn.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Sections {
    services: BTreeMap<String, Switch>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Switch {
    enabled: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::clock::SystemClock;
    use crate::core::config::{LimitSettings, MIN_SECRET_BYTES};
    use figment::providers::{Format, Toml};
    use figment::Figment;
    use std::sync::Arc;

    fn check(s: &Settings) -> Result<(), ConfigError> {
        let providers = Providers::build(
            &s.outbox,
            &s.providers,
            &s.ai,
            Arc::new(SystemClock),
            &Default::default(),
        )
        .unwrap();
        s.check(&providers)
    }

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
    fn a_limit_given_in_part_keeps_its_default_for_the_rest() {
        let toml = "[services.marketplace.rate_limits]\ngeneral = { limit = 5 }\n\
                    [services.interview.rate_limits]\nanswer = { window_secs = 30 }\n\
                    [services.messaging.rate_limits]\nsend = { limit = 7, window_secs = 2 }\n";
        let s: Settings = Figment::from(Toml::string(toml)).extract().unwrap();
        let defaults = Settings::default();
        let m = &s.services.marketplace.rate_limits;
        assert_eq!(m.general, LimitSettings::new(5, 900));
        assert_eq!(m.auth, defaults.services.marketplace.rate_limits.auth);
        let i = &s.services.interview.rate_limits;
        assert_eq!(i.answer, LimitSettings::new(120, 30));
        assert_eq!(
            s.services.messaging.rate_limits.send,
            LimitSettings::new(7, 2)
        );
        let bad = "[services.marketplace.rate_limits]\ngeneral = { limit = \"many\" }\n";
        assert!(Figment::from(Toml::string(bad))
            .extract::<Settings>()
            .is_err());
    }

    #[test]
    fn sections_of_services_not_built_are_read_only_for_their_switch() {
        let toml = "[services.marketplace]\nenabled = true\nbind = \"127.0.0.1:8081\"\n\
                    [services.billing]\nenabled = true\n\
                    [services.advertising]\nenabled = true\n\
                    [services.identity]\nenabled = true\n";
        let sections: Sections = Figment::from(Toml::string(toml)).extract().unwrap();
        let s = Settings::default();
        assert_eq!(s.enabled_but_not_built(sections), ["billing"]);
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
        s.services.advertising.admin.password = "a long admin password".into();
        s.services.advertising.dashboard_api_key = "d".repeat(MIN_SECRET_BYTES);
        s.providers.payments.provider = "stripe".into();
        s.providers.payments.secret_key = "sk_live_x".into();
        s.providers.payments.webhook_secret = "d".repeat(MIN_SECRET_BYTES);
    }

    #[test]
    fn exposed_binds_refuse_weak_settings() {
        assert!(check(&Settings::default()).is_ok(), "loopback is fine");
        let mut s = exposed();
        s.services.interview.webhook.allow_private_urls = true;
        s.services.messaging.webhooks.allow_private_urls = true;
        let Err(ConfigError::Unsafe(msg)) = check(&s) else {
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
            "services.advertising.admin.password",
            "services.advertising.dashboard_api_key",
            "providers.payments.webhook_secret",
            "providers.payments.provider",
        ] {
            assert!(msg.contains(key), "{key} named in {msg}");
        }
        s.server.environment = "development".into();
        assert!(check(&s).is_ok());
        let mut s = exposed();
        fix_secrets(&mut s);
        assert!(check(&s).is_ok());
        s.auth.jwt_secret = "x".repeat(MIN_SECRET_BYTES - 1);
        assert!(check(&s).is_err(), "31 bytes is too short");
    }

    #[test]
    fn only_enabled_services_are_asked() {
        let mut s = exposed();
        fix_secrets(&mut s);
        s.services.interview.api_key = "dev-interview-api-key".into();
        assert!(check(&s).is_err());
        s.restrict_to(&["identity".into(), "messaging".into()]);
        assert!(check(&s).is_ok(), "interview does not run");
    }

    #[test]
    fn production_refuses_the_dev_secret() {
        let mut s = Settings::default();
        s.server.environment = "production".into();
        assert!(check(&s).is_err());
        fix_secrets(&mut s);
        assert!(check(&s).is_ok());
    }

    #[test]
    fn a_reverse_proxy_in_front_counts_as_exposed() {
        let mut s = Settings::default();
        s.server.trusted_proxies = vec!["127.0.0.1".into()];
        let Err(ConfigError::Unsafe(msg)) = check(&s) else {
            panic!("loopback behind a proxy is still reachable from outside")
        };
        assert!(msg.contains("auth.jwt_secret"), "{msg}");
        fix_secrets(&mut s);
        assert!(check(&s).is_ok());
    }

    #[test]
    fn periodic_intervals_are_at_least_a_second() {
        let mut s = Settings::default();
        s.retention.interval_secs = 0;
        assert!(matches!(check(&s), Err(ConfigError::Invalid(_))));
        let mut s = Settings::default();
        s.services.identity.purge_interval_secs = 0;
        assert!(matches!(check(&s), Err(ConfigError::Invalid(_))));
    }
}
