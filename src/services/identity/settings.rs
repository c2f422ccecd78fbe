//! `[services.identity]`: the identity service's own settings and their defaults.

use crate::core::code_limits::CodeLimits;
use crate::core::config::{self, LimitSettings};
pub use crate::core::lockout::LockoutSettings;
use crate::core::rate_limit::PhoneLimit;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct IdentitySettings {
    pub enabled: bool,
    pub bind: String,
    /// Public address of this service, used for the built-in KYC page URL.
    pub public_url: String,
    pub otp_ttl_secs: i64,
    /// Seconds between two codes of one purpose to one phone: taps inside it are refused
    /// (OTP_COOLDOWN) and spend none of the phone's budget.
    pub otp_cooldown_secs: i64,
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
    /// Sign-in lockout after wrong PINs (`core::lockout`).
    pub lockout: LockoutSettings,
    /// Each limit given in part keeps its default for the rest.
    #[serde(deserialize_with = "config::limits_over_defaults")]
    pub rate_limits: IdentityRateLimits,
}

impl Default for IdentitySettings {
    fn default() -> Self {
        Self {
            enabled: true,
            bind: "127.0.0.1:8082".into(),
            public_url: "http://127.0.0.1:8082".into(),
            otp_ttl_secs: 300,
            otp_cooldown_secs: 60,
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

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(default)]
pub struct IdentityRateLimits {
    /// Codes sent to one phone from one address (the spec's 3 an hour).
    pub otp_send_per_sender: LimitSettings,
    /// Codes sent to one phone from every address together: the higher ceiling.
    pub otp_send_per_phone: LimitSettings,
    pub otp_send_per_ip: LimitSettings,
    /// Codes sent to the numbers of one country calling code (+49, +1) from the whole
    /// service, against SMS pumping (a limit of 0: no ceiling).
    pub otp_send_per_calling_code: LimitSettings,
    /// Sign-ins to one phone from one address (the spec's 5 per 15 minutes).
    pub signin_per_sender: LimitSettings,
    /// Sign-ins to one phone from every address together: the higher ceiling.
    pub signin_per_phone: LimitSettings,
    pub signin_per_ip: LimitSettings,
    pub handle_check: LimitSettings,
    pub default: LimitSettings,
}

impl IdentitySettings {
    /// What the codes texted by `POST /auth/otp/send` may cost.
    pub fn code_limits(&self) -> CodeLimits {
        let l = &self.rate_limits;
        CodeLimits::new(
            self.otp_cooldown_secs,
            l.otp_send_per_sender,
            l.otp_send_per_phone,
        )
        .per_calling_code(l.otp_send_per_calling_code)
    }
}

impl IdentityRateLimits {
    pub fn signin(&self) -> PhoneLimit {
        PhoneLimit {
            per_sender: self.signin_per_sender,
            per_phone: self.signin_per_phone,
        }
    }
}

impl Default for IdentityRateLimits {
    fn default() -> Self {
        Self {
            otp_send_per_sender: LimitSettings::new(3, 3600),
            otp_send_per_phone: LimitSettings::new(10, 3600),
            otp_send_per_ip: LimitSettings::new(20, 3600),
            otp_send_per_calling_code: LimitSettings::new(1000, 3600),
            signin_per_sender: LimitSettings::new(5, 900),
            signin_per_phone: LimitSettings::new(20, 900),
            signin_per_ip: LimitSettings::new(30, 900),
            handle_check: LimitSettings::new(30, 60),
            default: LimitSettings::new(100, 60),
        }
    }
}
