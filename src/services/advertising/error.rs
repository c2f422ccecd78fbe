//! The advertising platform's failures with their codes, how each becomes the core
//! [`ApiError`], and the body the issue fixes: `{error: <message>, code: <snake_case>}`
//! (`retryAfter` on 429, `details` when there are any), and for an unexpected failure only
//! `{error: "Internal server error"}`.

use crate::core::error::{snake_code, with_details_and_retry, ApiError, Envelope, Kind};
use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::{json, Value};
use utoipa::openapi::{RefOr, Schema};
use utoipa::{PartialSchema, ToSchema};

#[derive(Debug, thiserror::Error)]
pub enum AdvertisingError {
    /// A field that breaks its rule (named in `details.field`).
    #[error("{field}: {message}")]
    Invalid {
        field: &'static str,
        message: String,
    },
    #[error("verification code is incorrect")]
    InvalidOtp { attempts_remaining: i32 },
    #[error("verification code has expired or was never sent; request a new one")]
    OtpExpired,
    #[error("a code was sent moments ago; wait before asking for another")]
    OtpCooldown {
        until: DateTime<Utc>,
        now: DateTime<Utc>,
    },
    #[error("too many wrong codes for this phone; try again later")]
    OtpLocked {
        until: DateTime<Utc>,
        now: DateTime<Utc>,
    },
    /// Too many failed password sign-ins for the address (known or not): even the right
    /// password waits.
    #[error("too many failed sign-ins for this address; try again later")]
    AccountLocked {
        until: DateTime<Utc>,
        now: DateTime<Utc>,
    },
    #[error("this administrator signs in with a TOTP code (totpCode) or a recovery code")]
    TotpRequired,
    #[error("the TOTP or recovery code is incorrect or was used already")]
    InvalidTotp,
    /// TOTP is required of every administrator and this one has none yet: the token only
    /// enrols.
    #[error("TOTP is required: enrol with details.enrolmentToken, then sign in with a code")]
    TotpEnrolmentRequired { enrolment_token: String },
    #[error("TOTP is already enabled; disable it first to enrol again")]
    TotpAlreadyEnabled,
    #[error("no TOTP enrolment to confirm or disable")]
    TotpNotEnrolled,
    #[error("TOTP is required of every administrator and cannot be disabled")]
    TotpMandatory,
    /// The ceiling of codes texted to the phone's country calling code is reached.
    #[error("too many codes were texted to numbers of this country lately; try again later")]
    CountrySmsLimit {
        until: DateTime<Utc>,
        now: DateTime<Utc>,
    },
    #[error("this account is banned")]
    Banned,
    /// An unknown id, or another poster's record (the two answer alike).
    #[error("{0} not found")]
    NotFound(Record),
    #[error("you are already subscribed to this ad")]
    AlreadySubscribed,
    #[error("this ad is not open to new subscriptions")]
    AdNotAvailable,
    #[error("this ad is for posters in another country")]
    NotInCountry,
    #[error("video not ready")]
    VideoNotReady,
    #[error("a screenshot of this subscription is already waiting for a decision")]
    ScreenshotPending,
    #[error("a screenshot of this subscription is already approved")]
    ScreenshotApproved,
    #[error("too many of your screenshots did not show your video; try again later")]
    ProofsRefused {
        until: DateTime<Utc>,
        now: DateTime<Utc>,
    },
    #[error("this ad's budget no longer covers a payout")]
    BudgetExhausted,
    #[error("the amount is more than your available balance")]
    InsufficientBalance,
    #[error("this ticket is closed")]
    TicketClosed,
    #[error("{0}")]
    TooLarge(String),
    /// A moderation move the record's current state does not allow.
    #[error("{0}")]
    InvalidTransition(String),
    /// An ad whose video is still being processed cannot be approved yet.
    #[error("the ad's video is still being processed; approve it once it is ready")]
    AdVideoNotReady,
    /// An ad whose video could not be processed cannot be approved.
    #[error("the ad's video could not be processed ({0}); the advertiser must replace it")]
    VideoFailed(String),
}

/// The records a 404 names.
#[derive(Debug, Clone, Copy)]
pub enum Record {
    Ad,
    Category,
    Country,
    Subscription,
    Screenshot,
    Transaction,
    Ticket,
    Video,
    DeviceToken,
    User,
    Withdrawal,
    Payment,
    Invoice,
    Advertiser,
    /// A stored image or video a staff link names.
    Media,
}

impl Record {
    fn name(self) -> &'static str {
        match self {
            Self::Ad => "ad",
            Self::Category => "category",
            Self::Country => "country",
            Self::Subscription => "subscription",
            Self::Screenshot => "screenshot",
            Self::Transaction => "transaction",
            Self::Ticket => "support ticket",
            Self::Video => "video",
            Self::DeviceToken => "device token",
            Self::User => "user",
            Self::Withdrawal => "withdrawal",
            Self::Payment => "payment",
            Self::Invoice => "invoice",
            Self::Advertiser => "advertiser",
            Self::Media => "file",
        }
    }

    fn code(self) -> &'static str {
        match self {
            Self::Ad => "ad_not_found",
            Self::Category => "category_not_found",
            Self::Country => "country_not_found",
            Self::Subscription => "subscription_not_found",
            Self::Screenshot => "screenshot_not_found",
            Self::Transaction => "transaction_not_found",
            Self::Ticket => "ticket_not_found",
            Self::Video => "video_not_found",
            Self::DeviceToken => "device_token_not_found",
            Self::User => "user_not_found",
            Self::Withdrawal => "withdrawal_not_found",
            Self::Payment => "payment_not_found",
            Self::Invoice => "invoice_not_found",
            Self::Advertiser => "advertiser_not_found",
            Self::Media => "file_not_found",
        }
    }
}

impl std::fmt::Display for Record {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl AdvertisingError {
    pub fn invalid(field: &'static str, message: impl Into<String>) -> Self {
        Self::Invalid {
            field,
            message: message.into(),
        }
    }
}

/// A 429 until `until`: `retryAfter` in whole seconds, rounded up.
fn wait(message: String, code: &'static str, until: DateTime<Utc>, now: DateTime<Utc>) -> ApiError {
    ApiError::new(Kind::TooManyRequests, message)
        .code(code)
        .retry_until(until, now)
}

impl From<AdvertisingError> for ApiError {
    fn from(e: AdvertisingError) -> Self {
        let message = e.to_string();
        let conflict = |code| ApiError::new(Kind::Conflict, message.clone()).code(code);
        match e {
            AdvertisingError::Invalid { field, .. } => {
                ApiError::bad_request(message).detail("field", field)
            }
            AdvertisingError::InvalidOtp { attempts_remaining } => ApiError::bad_request(message)
                .code("invalid_otp")
                .detail("attemptsRemaining", attempts_remaining),
            AdvertisingError::OtpExpired => ApiError::bad_request(message).code("otp_expired"),
            AdvertisingError::OtpCooldown { until, now } => {
                wait(message, "otp_cooldown", until, now)
            }
            AdvertisingError::OtpLocked { until, now } => wait(message, "otp_locked", until, now),
            AdvertisingError::AccountLocked { until, now } => {
                wait(message, "account_locked", until, now)
            }
            AdvertisingError::TotpRequired => ApiError::unauthorized(message).code("totp_required"),
            AdvertisingError::InvalidTotp => {
                ApiError::unauthorized(message).code("invalid_totp_code")
            }
            AdvertisingError::TotpEnrolmentRequired { enrolment_token } => {
                ApiError::forbidden(message)
                    .code("totp_enrolment_required")
                    .detail("enrolmentToken", enrolment_token)
            }
            AdvertisingError::TotpAlreadyEnabled => conflict("totp_already_enabled"),
            AdvertisingError::TotpNotEnrolled => conflict("totp_not_enrolled"),
            AdvertisingError::TotpMandatory => ApiError::forbidden(message).code("totp_mandatory"),
            AdvertisingError::CountrySmsLimit { until, now } => {
                wait(message, "country_sms_limit", until, now)
            }
            AdvertisingError::Banned => ApiError::forbidden(message).code("account_banned"),
            AdvertisingError::NotFound(record) => ApiError::not_found(message).code(record.code()),
            AdvertisingError::AlreadySubscribed => conflict("already_subscribed"),
            AdvertisingError::AdNotAvailable => conflict("ad_not_available"),
            AdvertisingError::NotInCountry => {
                ApiError::forbidden(message).code("ad_not_available_in_country")
            }
            AdvertisingError::VideoNotReady => {
                ApiError::bad_request(message).code("video_not_ready")
            }
            AdvertisingError::ScreenshotPending => conflict("screenshot_pending"),
            AdvertisingError::ScreenshotApproved => conflict("screenshot_already_approved"),
            AdvertisingError::ProofsRefused { until, now } => {
                wait(message, "too_many_rejected_screenshots", until, now)
            }
            AdvertisingError::BudgetExhausted => {
                ApiError::bad_request(message).code("budget_exhausted")
            }
            AdvertisingError::InsufficientBalance => {
                ApiError::bad_request(message).code("insufficient_balance")
            }
            AdvertisingError::TicketClosed => conflict("ticket_closed"),
            AdvertisingError::TooLarge(_) => {
                ApiError::new(Kind::PayloadTooLarge, message).code("payload_too_large")
            }
            AdvertisingError::InvalidTransition(_) => conflict("invalid_transition"),
            AdvertisingError::VideoFailed(_) => conflict("video_failed"),
            AdvertisingError::AdVideoNotReady => conflict("video_not_ready"),
        }
    }
}

/// The error body, for the OpenAPI document.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    /// What went wrong, for people.
    pub error: String,
    /// What went wrong, for programs (absent on 500).
    pub code: Option<String>,
    /// Seconds to wait (429).
    pub retry_after: Option<i64>,
    /// More about the failure (`field` for invalid input).
    pub details: Option<serde_json::Map<String, Value>>,
}

pub struct AdvertisingEnvelope;

impl Envelope for AdvertisingEnvelope {
    fn code(kind: Kind) -> &'static str {
        snake_code(kind)
    }

    fn body(err: &ApiError, code: &str) -> Value {
        // The detail of an unexpected failure stays in the log.
        if err.kind() == Kind::Internal {
            return json!({ "error": "Internal server error" });
        }
        with_details_and_retry(err, json!({ "error": err.message(), "code": code }))
    }

    fn schema() -> RefOr<Schema> {
        <ErrorBody as PartialSchema>::schema()
    }
}

pub type Result<T, E = ApiError> = std::result::Result<T, E>;
