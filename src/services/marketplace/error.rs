//! The marketplace's failures with their codes, how each becomes the core [`ApiError`], and
//! the spec's body: `{success: false, error, message, details?, retryAfter?}`.

use crate::core::error::{snake_code, with_details_and_retry, ApiError, Envelope, Kind};
use serde::Serialize;
use serde_json::{json, Value};
use switchboard_actors::marketplace::ConversationError;
use utoipa::openapi::{RefOr, Schema};
use utoipa::{PartialSchema, ToSchema};

#[derive(Debug, thiserror::Error)]
pub enum MarketplaceError {
    /// A field that breaks its rule; `value` is echoed unless the field is a secret.
    #[error("{message}")]
    Validation {
        field: &'static str,
        value: Option<String>,
        message: String,
    },
    #[error("phone or password is incorrect")]
    InvalidCredentials,
    #[error("refresh token is invalid, expired or revoked")]
    InvalidRefreshToken,
    #[error("the account behind this token no longer exists")]
    AccountGone,
    #[error("verification code is incorrect")]
    InvalidOtp { attempts_remaining: i32 },
    #[error("verification code has expired; request a new one")]
    OtpExpired,
    #[error("reset token is invalid, expired or already used")]
    InvalidResetToken,
    #[error("an account with this phone number already exists")]
    PhoneExists,
    #[error("you are already a dealer")]
    AlreadyDealer,
    #[error("you already have a pending dealer application")]
    ApplicationExists,
    #[error("this dealer is already approved")]
    DealerAlreadyApproved,
    #[error("no dealer with this id")]
    DealerNotFound,
    #[error("you have already reviewed this dealer")]
    ReviewExists,
    #[error("a dealer cannot review themself")]
    SelfReview,
    #[error("no such make in the catalogue")]
    MakeNotFound,
    #[error("no such model of this make in the catalogue")]
    ModelNotFound,
    #[error("no car listing with this id")]
    CarNotFound,
    #[error("only the listing's owner or an administrator may change it")]
    NotOwner,
    #[error("no comment with this id")]
    CommentNotFound,
    #[error("this is your own listing")]
    OwnCar,
    #[error("this car is sold")]
    CarNotAvailable,
    #[error("no user with this id")]
    UserNotFound,
    #[error("no message with this id")]
    MessageNotFound,
    #[error("only the message's receiver may mark it read")]
    NotReceiver,
    #[error("too many wrong passwords: the account is locked for a while; reset the password to unlock it now")]
    AccountLocked {
        until: chrono::DateTime<chrono::Utc>,
        now: chrono::DateTime<chrono::Utc>,
    },
    #[error("a code was sent moments ago; wait before asking for another")]
    OtpCooldown {
        until: chrono::DateTime<chrono::Utc>,
        now: chrono::DateTime<chrono::Utc>,
    },
    #[error("too many wrong codes for this phone today; try again later")]
    OtpLocked {
        until: chrono::DateTime<chrono::Utc>,
        now: chrono::DateTime<chrono::Utc>,
    },
    #[error("verify your phone number first (POST /auth/verify-signup)")]
    PhoneNotVerified,
    #[error("the applicant has not verified their phone number")]
    ApplicantPhoneNotVerified,
}

impl MarketplaceError {
    pub fn invalid(field: &'static str, value: &str, message: impl Into<String>) -> Self {
        Self::Validation {
            field,
            value: Some(value.to_owned()),
            message: message.into(),
        }
    }

    /// A secret field (password) whose value is never echoed.
    pub fn invalid_secret(field: &'static str, message: impl Into<String>) -> Self {
        Self::Validation {
            field,
            value: None,
            message: message.into(),
        }
    }
}

/// A 429 until `until`: `retryAfter` in whole seconds, rounded up (retrying after it always
/// finds the lock lifted), and `details.lockedUntil`.
fn locked(
    message: String,
    code: &'static str,
    until: chrono::DateTime<chrono::Utc>,
    now: chrono::DateTime<chrono::Utc>,
) -> ApiError {
    ApiError::new(Kind::TooManyRequests, message)
        .code(code)
        .retry_until(until, now)
        .detail("lockedUntil", until)
}

impl From<MarketplaceError> for ApiError {
    fn from(e: MarketplaceError) -> Self {
        let message = e.to_string();
        match e {
            MarketplaceError::Validation { field, value, .. } => ApiError::bad_request(message)
                .detail("field", field)
                .detail("value", value),
            MarketplaceError::InvalidCredentials => {
                ApiError::unauthorized(message).code("invalid_credentials")
            }
            MarketplaceError::InvalidRefreshToken => {
                ApiError::unauthorized(message).code("invalid_refresh_token")
            }
            MarketplaceError::AccountGone => ApiError::unauthorized(message).code("invalid_token"),
            MarketplaceError::InvalidOtp { attempts_remaining } => ApiError::bad_request(message)
                .code("invalid_otp")
                .detail("attemptsRemaining", attempts_remaining),
            MarketplaceError::OtpExpired => ApiError::bad_request(message).code("otp_expired"),
            MarketplaceError::InvalidResetToken => {
                ApiError::bad_request(message).code("invalid_reset_token")
            }
            MarketplaceError::PhoneExists => {
                ApiError::new(Kind::Conflict, message).code("phone_exists")
            }
            MarketplaceError::AlreadyDealer => {
                ApiError::new(Kind::Conflict, message).code("already_dealer")
            }
            MarketplaceError::ApplicationExists => {
                ApiError::new(Kind::Conflict, message).code("application_exists")
            }
            MarketplaceError::DealerAlreadyApproved => {
                ApiError::new(Kind::Conflict, message).code("already_approved")
            }
            MarketplaceError::DealerNotFound => {
                ApiError::not_found(message).code("dealer_not_found")
            }
            MarketplaceError::ReviewExists => {
                ApiError::new(Kind::Conflict, message).code("review_exists")
            }
            MarketplaceError::SelfReview => ApiError::forbidden(message).code("self_review"),
            MarketplaceError::MakeNotFound => ApiError::not_found(message).code("make_not_found"),
            MarketplaceError::ModelNotFound => ApiError::not_found(message).code("model_not_found"),
            MarketplaceError::CarNotFound => ApiError::not_found(message).code("car_not_found"),
            MarketplaceError::NotOwner => ApiError::forbidden(message).code("not_owner"),
            MarketplaceError::CommentNotFound => {
                ApiError::not_found(message).code("comment_not_found")
            }
            MarketplaceError::OwnCar => ApiError::forbidden(message).code("own_car"),
            MarketplaceError::CarNotAvailable => {
                ApiError::new(Kind::Conflict, message).code("car_not_available")
            }
            MarketplaceError::UserNotFound => ApiError::not_found(message).code("user_not_found"),
            MarketplaceError::MessageNotFound => {
                ApiError::not_found(message).code("message_not_found")
            }
            MarketplaceError::NotReceiver => ApiError::forbidden(message).code("not_receiver"),
            MarketplaceError::AccountLocked { until, now } => {
                locked(message, "account_locked", until, now)
            }
            MarketplaceError::OtpLocked { until, now } => locked(message, "otp_locked", until, now),
            MarketplaceError::OtpCooldown { until, now } => {
                ApiError::new(Kind::TooManyRequests, message)
                    .code("otp_cooldown")
                    .retry_until(until, now)
            }
            MarketplaceError::PhoneNotVerified => {
                ApiError::forbidden(message).code("phone_not_verified")
            }
            MarketplaceError::ApplicantPhoneNotVerified => {
                ApiError::new(Kind::Conflict, message).code("applicant_phone_not_verified")
            }
        }
    }
}

impl From<ConversationError> for ApiError {
    fn from(e: ConversationError) -> Self {
        match e {
            ConversationError::NotFound => ApiError::not_found(e.to_string()),
            ConversationError::Unavailable => ApiError::new(Kind::Unavailable, e.to_string()),
            ConversationError::Db(db) => ApiError::internal(db),
        }
    }
}

pub struct MarketplaceEnvelope;

impl Envelope for MarketplaceEnvelope {
    fn code(kind: Kind) -> &'static str {
        snake_code(kind)
    }

    fn body(err: &ApiError, code: &str) -> Value {
        with_details_and_retry(
            err,
            json!({ "success": false, "error": code, "message": err.message() }),
        )
    }

    fn schema() -> RefOr<Schema> {
        <ErrorEnvelope as PartialSchema>::schema()
    }
}

pub type Result<T, E = ApiError> = std::result::Result<T, E>;

/// `{success: false, error, message, details?, retryAfter?}`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ErrorEnvelope {
    pub success: bool,
    /// A snake_case code (docs/decisions.md lists each and who answers it).
    pub error: String,
    pub message: String,
    /// For validation_error: `{field, value}`.
    #[schema(value_type = Option<Object>)]
    pub details: Option<serde_json::Value>,
    /// Seconds to wait, on rate_limit_exceeded.
    pub retry_after: Option<i64>,
}
