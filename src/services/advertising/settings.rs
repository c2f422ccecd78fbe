//! `[services.advertising]`: the advertising platform's own settings and their defaults.

use crate::core::code_limits::CodeLimits;
use crate::core::config::{self, ConfigError, LimitSettings};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct AdvertisingSettings {
    pub enabled: bool,
    pub bind: String,
    /// Life of a poster's token (`typ: poster`); logout ends it sooner.
    pub poster_token_ttl_secs: i64,
    /// Life of an advertiser's token (`typ: advertiser`) and of an administrator's
    /// (`typ: admin`); logout, a password reset or a role change end them sooner.
    pub advertiser_token_ttl_secs: i64,
    pub admin_token_ttl_secs: i64,
    /// How long a sign-in code stays valid (the issue: 10 minutes).
    pub otp_ttl_secs: i64,
    /// Seconds between two codes for one phone (the spec: 60).
    pub otp_cooldown_secs: i64,
    /// Wrong codes in a row that lock the phone (the spec: 5) and for how long (15 minutes).
    pub otp_max_failures: i32,
    pub otp_lock_secs: i64,
    /// Advertisers' and administrators' password sign-in, counted per address across every
    /// client address and node: after this many failures in a row (wrong passwords or TOTP
    /// codes) each further attempt waits `signin_lock_secs`, doubling with every failure
    /// past the threshold up to `signin_max_lock_secs`; a success starts again.
    pub signin_max_failures: i32,
    pub signin_lock_secs: i64,
    pub signin_max_lock_secs: i64,
    /// Every administrator signs in with a TOTP code: one without it enabled gets only an
    /// enrolment token (for `/admin/auth/totp/enrol` and `confirm`), no session.
    pub require_admin_totp: bool,
    /// Life of a signed personalised-video link.
    pub video_link_ttl_secs: i64,
    /// Life of a staff link to a stored screenshot, video or thumbnail (the admin views'
    /// `imageUrl`, `videoUrl`, `thumbnailUrl`).
    pub staff_link_ttl_secs: i64,
    /// Largest screenshot accepted, in bytes (10 MB).
    pub max_screenshot_bytes: usize,
    /// Attempts at a personalised video (the first and the retries, with the queue's backoff)
    /// before the subscription fails.
    pub video_attempts: i32,
    /// Screenshots rejected as not showing the poster's video that stop them submitting,
    /// and the window they are counted in (0 turns the limit off).
    pub proof_rejection_limit: u32,
    pub proof_rejection_window_secs: i64,
    /// Largest ad video fetched from a URL, in bytes (200 MB).
    pub max_video_bytes: u64,
    /// `[services.advertising.media]`: the largest source video and how long media no
    /// record needs is kept.
    pub media: MediaSettings,
    /// Fetch ad videos from loopback and private addresses too (local development and
    /// tests only: otherwise a URL could reach inside the network).
    pub allow_private_video_urls: bool,
    /// Each limit given in part keeps its default for the rest.
    /// Where the links mailed to advertisers lead: the advertiser app's base URL (its
    /// `/verify-email?token=…` and `/reset-password?token=…` pages).
    pub advertiser_app_url: String,
    /// The sender of mails to advertisers.
    pub mail_from_name: String,
    pub mail_from_address: String,
    /// What a poster earns from a campaign whose advertiser gives no `payoutUsd`.
    pub default_payout_usd: String,
    #[serde(deserialize_with = "config::limits_over_defaults")]
    pub rate_limits: AdvertisingRateLimits,
    /// `[services.advertising.admin]`: the first administrator, made at start-up when absent.
    pub admin: AdminSeed,
    /// The website's key for `GET /api/dashboard/metrics` (`X-API-Key`).
    pub dashboard_api_key: String,
}

/// Limits of an advertiser's source video (checked by ffprobe at upload and again in the
/// job) and the storage sweep's timings.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct MediaSettings {
    pub max_duration_secs: f64,
    /// Width × height of the largest frame (4K UHD).
    pub max_pixels: u64,
    pub max_frame_rate: f64,
    /// Rejected and deleted ads' media are removed this long after their last change.
    pub retention_days: i64,
    /// How often the sweep looks for media no record points at…
    pub sweep_every_secs: u64,
    /// …and how old such an object must be (an upload whose row is still being written
    /// is not yet pointed at).
    pub orphan_grace_secs: i64,
}

impl Default for MediaSettings {
    fn default() -> Self {
        Self {
            max_duration_secs: 180.0,
            max_pixels: 3840 * 2160,
            max_frame_rate: 60.0,
            retention_days: 30,
            sweep_every_secs: 3600,
            orphan_grace_secs: 3600,
        }
    }
}

/// The administrator seeded at start-up (role `admin`); the start-up guard refuses the
/// development password beyond loopback.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct AdminSeed {
    pub email: String,
    pub password: String,
}

pub const DEV_ADMIN_PASSWORD: &str = "dev-admin-password";
pub const DEV_DASHBOARD_KEY: &str = "dev-dashboard-api-key";

impl Default for AdminSeed {
    fn default() -> Self {
        Self {
            email: "admin@switchboard.local".into(),
            password: DEV_ADMIN_PASSWORD.into(),
        }
    }
}

impl Default for AdvertisingSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            bind: "127.0.0.1:8085".into(),
            poster_token_ttl_secs: 30 * 24 * 3600,
            advertiser_token_ttl_secs: 7 * 24 * 3600,
            admin_token_ttl_secs: 12 * 3600,
            otp_ttl_secs: 600,
            otp_cooldown_secs: 60,
            otp_max_failures: 5,
            otp_lock_secs: 15 * 60,
            signin_max_failures: 10,
            signin_lock_secs: 60,
            signin_max_lock_secs: 3600,
            require_admin_totp: false,
            video_link_ttl_secs: 6 * 3600,
            staff_link_ttl_secs: 15 * 60,
            max_screenshot_bytes: 10 * 1024 * 1024,
            video_attempts: 4,
            proof_rejection_limit: 5,
            proof_rejection_window_secs: 24 * 3600,
            max_video_bytes: 200 * 1024 * 1024,
            media: MediaSettings::default(),
            allow_private_video_urls: false,
            advertiser_app_url: "http://localhost:3000".into(),
            mail_from_name: "Switchboard Ads".into(),
            mail_from_address: "no-reply@switchboard.local".into(),
            default_payout_usd: "0.50".into(),
            rate_limits: AdvertisingRateLimits::default(),
            admin: AdminSeed::default(),
            dashboard_api_key: DEV_DASHBOARD_KEY.into(),
        }
    }
}

impl AdvertisingSettings {
    /// What the sign-in codes texted to posters may cost.
    pub fn code_limits(&self) -> CodeLimits {
        let l = &self.rate_limits;
        CodeLimits::new(self.otp_cooldown_secs, l.otp_per_sender, l.otp_per_phone)
            .per_calling_code(l.otp_per_calling_code)
    }

    /// The keys the start-up guard refuses beyond loopback: the development administrator
    /// password (or one shorter than 10 characters) and a weak dashboard key.
    pub fn unsafe_keys(&self) -> Vec<String> {
        let password = &self.admin.password;
        let weak_password = password == DEV_ADMIN_PASSWORD
            || password.starts_with("dev-")
            || password.chars().count() < 10;
        weak_password
            .then(|| {
                "services.advertising.admin.password is the development default or shorter than 10 characters".to_owned()
            })
            .into_iter()
            .chain(config::weak_secret(
                "services.advertising.dashboard_api_key",
                &self.dashboard_api_key,
            ))
            .collect()
    }

    /// The sign-in lockout's numbers in `core::lockout`'s terms (one lock per failure past
    /// the threshold, see `signin_max_failures`).
    pub fn signin_lockout(&self) -> crate::core::lockout::LockoutSettings {
        crate::core::lockout::LockoutSettings {
            max_failures: self.signin_max_failures,
            base_lock_secs: self.signin_lock_secs,
            max_lock_secs: self.signin_max_lock_secs,
        }
    }

    /// Values no deployment can use (the start-up guard's `validate`).
    pub fn check(&self) -> Result<(), ConfigError> {
        let invalid =
            |what: &str| Err(ConfigError::Invalid(format!("services.advertising.{what}")));
        if [
            self.poster_token_ttl_secs,
            self.advertiser_token_ttl_secs,
            self.admin_token_ttl_secs,
        ]
        .iter()
        .any(|ttl| *ttl < 60)
        {
            return invalid("poster/advertiser/admin_token_ttl_secs must be at least 60");
        }
        if self.otp_ttl_secs < 60 || self.otp_cooldown_secs < 0 || self.otp_lock_secs < 1 {
            return invalid("otp_ttl_secs >= 60, otp_cooldown_secs >= 0, otp_lock_secs >= 1");
        }
        if self.otp_max_failures < 1 {
            return invalid("otp_max_failures must be at least 1");
        }
        if self.signin_max_failures < 1
            || self.signin_lock_secs < 1
            || self.signin_max_lock_secs < self.signin_lock_secs
        {
            return invalid(
                "signin_max_failures >= 1, signin_lock_secs >= 1, signin_max_lock_secs >= signin_lock_secs",
            );
        }
        if self.video_link_ttl_secs < 60 {
            return invalid("video_link_ttl_secs must be at least 60");
        }
        if !(10..=24 * 3600).contains(&self.staff_link_ttl_secs) {
            return invalid("staff_link_ttl_secs must be 10 to 86400");
        }
        if self.max_screenshot_bytes < 1024 {
            return invalid("max_screenshot_bytes must be at least 1024");
        }
        if !(1..=20).contains(&self.video_attempts) {
            return invalid("video_attempts must be 1 to 20");
        }
        if self.proof_rejection_window_secs < 60 {
            return invalid("proof_rejection_window_secs must be at least 60");
        }
        if self.max_video_bytes < 1024 {
            return invalid("max_video_bytes must be at least 1024");
        }
        if !url::Url::parse(&self.advertiser_app_url)
            .is_ok_and(|u| matches!(u.scheme(), "http" | "https"))
        {
            return invalid("advertiser_app_url must be an http(s) URL");
        }
        if self.mail_from_address.matches('@').count() != 1 {
            return invalid("mail_from_address must be an email address");
        }
        if super::wire::parse_usd(
            "default_payout_usd",
            &serde_json::Value::String(self.default_payout_usd.clone()),
        )
        .is_err()
        {
            return invalid("default_payout_usd must be dollars above 0 with at most two places");
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Copy, Deserialize, Serialize)]
#[serde(default)]
pub struct AdvertisingRateLimits {
    /// Every request, per caller (address when anonymous).
    pub general: LimitSettings,
    /// Sign-in requests (request-otp, verify-otp) per address.
    pub auth: LimitSettings,
    /// Codes sent to one phone from one address, and from every address together.
    pub otp_per_sender: LimitSettings,
    pub otp_per_phone: LimitSettings,
    /// Codes sent to the numbers of one country calling code (+44, +1) from the whole
    /// service, against SMS pumping (a limit of 0: no ceiling).
    pub otp_per_calling_code: LimitSettings,
    /// Uploads (screenshots) and subscriptions per poster: each costs storage and a job.
    pub uploads: LimitSettings,
}

impl Default for AdvertisingRateLimits {
    fn default() -> Self {
        Self {
            general: LimitSettings::new(300, 15 * 60),
            auth: LimitSettings::new(20, 15 * 60),
            otp_per_sender: LimitSettings::new(5, 3600),
            otp_per_phone: LimitSettings::new(10, 3600),
            otp_per_calling_code: LimitSettings::new(1000, 3600),
            uploads: LimitSettings::new(30, 3600),
        }
    }
}
