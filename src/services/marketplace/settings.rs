//! `[services.marketplace]`: the car marketplace's own settings and their defaults.

use crate::core::config::LimitSettings;
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct MarketplaceSettings {
    pub enabled: bool,
    pub bind: String,
    /// Access JWT lifetime (the spec: 24 hours).
    pub access_ttl_secs: i64,
    /// Refresh token lifetime from its issue (the spec: 30 days); rotation issues a new one.
    pub refresh_ttl_days: i64,
    /// How long a one-time code stays valid.
    pub otp_ttl_secs: i64,
    /// Wrong guesses one code survives; the last one burns it.
    pub otp_max_attempts: i32,
    /// Life of the temporary token that verify-forgot-password answers.
    pub reset_token_ttl_secs: i64,
    pub rate_limits: MarketplaceRateLimits,
}

impl Default for MarketplaceSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            bind: "127.0.0.1:8081".into(),
            access_ttl_secs: 24 * 3600,
            refresh_ttl_days: 30,
            otp_ttl_secs: 600,
            otp_max_attempts: 5,
            reset_token_ttl_secs: 900,
            rate_limits: MarketplaceRateLimits::default(),
        }
    }
}

/// The spec's table: general requests per caller (address when anonymous), authentication
/// requests per address.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct MarketplaceRateLimits {
    pub general: LimitSettings,
    pub auth: LimitSettings,
    /// Codes asked for one phone (forgot-password, resend-otp) from any address: no phone
    /// is flooded with SMS by many senders.
    pub otp_per_phone: LimitSettings,
    /// The AI helpers, per caller (address when anonymous): each may cost a model call.
    pub ai: LimitSettings,
}

impl Default for MarketplaceRateLimits {
    fn default() -> Self {
        Self {
            general: LimitSettings::new(100, 15 * 60),
            auth: LimitSettings::new(5, 15 * 60),
            otp_per_phone: LimitSettings::new(5, 3600),
            ai: LimitSettings::new(30, 15 * 60),
        }
    }
}
