//! `[services.marketplace]`: the car marketplace's own settings and their defaults.

use crate::core::code_limits::CodeLimits;
use crate::core::config::{self, ConfigError, LimitSettings};
use crate::core::lockout::LockoutSettings;
use crate::providers::settings::AiSettings;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct MarketplaceSettings {
    pub enabled: bool,
    pub bind: String,
    /// Access JWT lifetime (the spec: 24 hours).
    pub access_ttl_secs: i64,
    /// Refresh token lifetime from its issue (the spec: 30 days); rotation issues a new one.
    pub refresh_ttl_days: i64,
    /// Each refresh replaces the refresh token, and a replaced one presented again ends its
    /// login (reuse detection). Off by default: the spec's client keeps its refresh token.
    pub rotate_refresh_tokens: bool,
    /// How long a one-time code stays valid.
    pub otp_ttl_secs: i64,
    /// Seconds between two codes of one purpose to one phone (forgot-password, resend-otp):
    /// taps inside it are refused (429 otp_cooldown) and spend none of the phone's budget.
    pub otp_cooldown_secs: i64,
    /// Wrong guesses one code survives; the last one burns it.
    pub otp_max_attempts: i32,
    /// Guesses at a phone's codes over a rolling 24 hours, however many codes are asked for.
    pub otp_attempts_per_day: i32,
    /// Life of the temporary token that verify-forgot-password answers.
    pub reset_token_ttl_secs: i64,
    /// Login lockout after wrong passwords in a row, from any address (`core::lockout`).
    pub lockout: LockoutSettings,
    /// Distinct phone-verified sellers who must list a make or model before it enters the
    /// public catalogue (an administrator's listing adds it at once).
    pub catalogue_min_sellers: u64,
    /// Each limit given in part keeps its default for the rest.
    #[serde(deserialize_with = "config::limits_over_defaults")]
    pub rate_limits: MarketplaceRateLimits,
    pub vin: VinSettings,
    pub sandbox: SandboxSettings,
}

impl Default for MarketplaceSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            bind: "127.0.0.1:8081".into(),
            access_ttl_secs: 24 * 3600,
            refresh_ttl_days: 30,
            rotate_refresh_tokens: false,
            otp_ttl_secs: 600,
            otp_cooldown_secs: 60,
            otp_max_attempts: 5,
            otp_attempts_per_day: 10,
            reset_token_ttl_secs: 900,
            catalogue_min_sellers: 3,
            lockout: LockoutSettings::default(),
            rate_limits: MarketplaceRateLimits::default(),
            vin: VinSettings::default(),
            sandbox: SandboxSettings::default(),
        }
    }
}

impl MarketplaceSettings {
    /// Values no deployment can use (the start-up guard's `validate`).
    pub fn check(&self) -> Result<(), ConfigError> {
        let invalid =
            |what: &str| Err(ConfigError::Invalid(format!("services.marketplace.{what}")));
        let url_ok = url::Url::parse(&self.vin.base_url)
            .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some());
        if !url_ok {
            return invalid("vin.base_url must be an http(s) URL");
        }
        if !(1..=60_000).contains(&self.vin.timeout_ms) {
            return invalid("vin.timeout_ms must be 1 to 60000");
        }
        if self.otp_cooldown_secs < 0 {
            return invalid("otp_cooldown_secs must be 0 (none) or more");
        }
        if self.catalogue_min_sellers == 0 {
            return invalid("catalogue_min_sellers must be at least 1");
        }
        let sandbox = &self.sandbox;
        if sandbox.enabled && sandbox.database_url.trim().is_empty() {
            return invalid("sandbox.database_url is required when the sandbox is enabled");
        }
        // Port 0 asks the system for a free port, so two such binds never meet.
        let ephemeral = sandbox.bind.ends_with(":0");
        if sandbox.enabled && sandbox.bind == self.bind && !ephemeral {
            return invalid("sandbox.bind must differ from bind");
        }
        Ok(())
    }
}

/// The spec's table: general requests per caller (address when anonymous), authentication
/// requests per address.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(default)]
pub struct MarketplaceRateLimits {
    pub general: LimitSettings,
    pub auth: LimitSettings,
    /// Codes asked for one phone past the cooldown (forgot-password, resend-otp) from one
    /// address: a stranger spends only their own share of a phone's codes.
    pub otp_per_sender: LimitSettings,
    /// Codes asked for one phone from every address together: the higher ceiling, so no
    /// phone is flooded with SMS by many senders.
    pub otp_per_phone: LimitSettings,
    /// Car and comment likes, per caller (address when anonymous).
    pub likes: LimitSettings,
    /// Comments and replies, per caller.
    pub comments: LimitSettings,
    /// Recorded views, per caller.
    pub views: LimitSettings,
    /// The AI helpers, per caller (address when anonymous): each may cost a model call.
    pub ai: LimitSettings,
}

impl MarketplaceSettings {
    /// What the codes of forgot-password and resend-otp may cost (sign-up texts its one code
    /// under the per-address `auth` limit).
    pub fn code_limits(&self) -> CodeLimits {
        let l = &self.rate_limits;
        CodeLimits::new(self.otp_cooldown_secs, l.otp_per_sender, l.otp_per_phone)
    }
}

impl Default for MarketplaceRateLimits {
    fn default() -> Self {
        Self {
            general: LimitSettings::new(100, 15 * 60),
            auth: LimitSettings::new(5, 15 * 60),
            otp_per_sender: LimitSettings::new(5, 3600),
            otp_per_phone: LimitSettings::new(20, 3600),
            likes: LimitSettings::new(50, 15 * 60),
            comments: LimitSettings::new(20, 15 * 60),
            views: LimitSettings::new(100, 15 * 60),
            ai: LimitSettings::new(30, 15 * 60),
        }
    }
}

/// Where VIN lookups are answered from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VinProviderKind {
    /// The built-in decoder only (no outbound call).
    Offline,
    /// A NHTSA vPIC compatible service, over the built-in decoder's facts.
    Vpic,
}

/// `[services.marketplace.vin]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct VinSettings {
    pub provider: VinProviderKind,
    /// The vPIC API root; `{base_url}/DecodeVinValues/{vin}?format=json` is asked.
    pub base_url: String,
    /// How long one online lookup may take before the offline answer is given.
    pub timeout_ms: u64,
}

impl Default for VinSettings {
    fn default() -> Self {
        Self {
            provider: VinProviderKind::Offline,
            base_url: "https://vpic.nhtsa.dot.gov/api/vehicles".into(),
            timeout_ms: 3000,
        }
    }
}

/// `[services.marketplace.sandbox]`: the same marketplace a second time, on its own bind and
/// its own database, for test-mode requests (the spec's development address).
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct SandboxSettings {
    pub enabled: bool,
    pub bind: String,
    pub database_url: String,
    /// `[services.marketplace.sandbox.ai]`: the sandbox's own AI writer (built-in by
    /// default), so test-mode requests never spend or expose the production `[ai]` key.
    pub ai: AiSettings,
}

impl Default for SandboxSettings {
    fn default() -> Self {
        Self {
            enabled: false,
            bind: "127.0.0.1:8091".into(),
            database_url: "sqlite://data/marketplace-sandbox.db?mode=rwc".into(),
            ai: AiSettings::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unusable_vin_and_sandbox_settings_are_refused() {
        assert!(MarketplaceSettings::default().check().is_ok());
        let with = |f: fn(&mut MarketplaceSettings)| {
            let mut s = MarketplaceSettings::default();
            f(&mut s);
            s.check()
        };
        assert!(with(|s| s.vin.base_url = "vpic.nhtsa.dot.gov".into()).is_err());
        assert!(with(|s| s.vin.timeout_ms = 0).is_err());
        assert!(with(|s| {
            s.sandbox.enabled = true;
            s.sandbox.bind = s.bind.clone();
        })
        .is_err());
        assert!(with(|s| {
            s.sandbox.enabled = true;
            s.sandbox.database_url = " ".into();
        })
        .is_err());
        assert!(with(|s| s.sandbox.enabled = true).is_ok());
    }
}
