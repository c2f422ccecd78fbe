//! The identity service's error envelope: `{success:false, error:{code,message,details}}`.

use crate::core::http::{Envelope, FrameworkError};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use serde_json::{json, Value};

#[derive(Debug, thiserror::Error)]
pub enum IdentityError {
    #[error("{0}")]
    InvalidRequest(String),
    #[error("phone number must be in international E.164 format, e.g. +4917667111638")]
    InvalidPhone,
    #[error("PIN must be 4 to 6 digits")]
    InvalidPin,
    #[error("{0}")]
    InvalidHandle(String),
    #[error("the code is wrong")]
    InvalidOtp { attempts_remaining: i32 },
    #[error("the code has expired; request a new one")]
    OtpExpired,
    #[error("temporary token is invalid, used or expired")]
    InvalidTempToken,
    #[error("phone number or PIN is wrong")]
    InvalidCredentials,
    #[error("access token is invalid")]
    InvalidToken,
    #[error("access token has expired")]
    TokenExpired,
    #[error("refresh token is invalid or revoked")]
    InvalidRefreshToken,
    #[error("refresh token has expired; sign in again")]
    RefreshTokenExpired,
    #[error("too many failed sign-in attempts; the account is locked")]
    AccountLocked {
        locked_until: chrono::DateTime<chrono::Utc>,
    },
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("no account is registered with this phone number")]
    PhoneNotFound,
    #[error("no account is registered with this phone number")]
    AccountNotFound,
    #[error("this handle is already taken")]
    HandleTaken,
    #[error("this handle is reserved")]
    HandleReserved,
    #[error("an account with this phone number already exists")]
    PhoneExists,
    #[error("the handle can be changed once every 30 days")]
    HandleCooldown {
        next_change_available: chrono::DateTime<chrono::Utc>,
    },
    #[error("too many requests; try again later")]
    RateLimited { retry_after: i64 },
    #[error("too many wrong codes; request a new one")]
    TooManyAttempts,
    #[error("too many wrong codes for this phone number in 24 hours; try again later")]
    OtpLocked {
        locked_until: chrono::DateTime<chrono::Utc>,
        retry_after: i64,
    },
    #[error("{1}")]
    Framework(FrameworkError, String),
    #[error("internal error")]
    Internal(#[source] anyhow_like::Cause),
}

/// A boxed cause for internal errors; logged, never shown to the client.
pub mod anyhow_like {
    pub type Cause = Box<dyn std::error::Error + Send + Sync + 'static>;
}

impl IdentityError {
    pub fn internal(e: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self::Internal(Box::new(e))
    }

    pub fn code(&self) -> &'static str {
        match self {
            Self::InvalidRequest(_) => "INVALID_REQUEST",
            Self::InvalidPhone => "INVALID_PHONE",
            Self::InvalidPin => "INVALID_PIN",
            Self::InvalidHandle(_) => "INVALID_HANDLE",
            Self::InvalidOtp { .. } => "INVALID_OTP",
            Self::OtpExpired => "OTP_EXPIRED",
            Self::InvalidTempToken => "INVALID_TEMP_TOKEN",
            Self::InvalidCredentials => "INVALID_CREDENTIALS",
            Self::InvalidToken => "INVALID_TOKEN",
            Self::TokenExpired => "TOKEN_EXPIRED",
            Self::InvalidRefreshToken => "INVALID_REFRESH_TOKEN",
            Self::RefreshTokenExpired => "REFRESH_TOKEN_EXPIRED",
            Self::AccountLocked { .. } => "ACCOUNT_LOCKED",
            Self::Forbidden(_) => "FORBIDDEN",
            Self::NotFound(_) => "NOT_FOUND",
            Self::PhoneNotFound => "PHONE_NOT_FOUND",
            Self::AccountNotFound => "ACCOUNT_NOT_FOUND",
            Self::HandleTaken => "HANDLE_TAKEN",
            Self::HandleReserved => "HANDLE_RESERVED",
            Self::PhoneExists => "PHONE_EXISTS",
            Self::HandleCooldown { .. } => "HANDLE_COOLDOWN",
            Self::RateLimited { .. } => "RATE_LIMITED",
            Self::TooManyAttempts => "TOO_MANY_ATTEMPTS",
            Self::OtpLocked { .. } => "OTP_LOCKED",
            Self::Framework(kind, _) => match kind {
                FrameworkError::NotFound => "NOT_FOUND",
                FrameworkError::MethodNotAllowed => "METHOD_NOT_ALLOWED",
                FrameworkError::PayloadTooLarge => "PAYLOAD_TOO_LARGE",
                FrameworkError::UnsupportedMediaType => "UNSUPPORTED_MEDIA_TYPE",
                FrameworkError::BadRequest => "INVALID_REQUEST",
            },
            Self::Internal(_) => "INTERNAL_ERROR",
        }
    }

    fn details(&self) -> Value {
        match self {
            Self::InvalidOtp { attempts_remaining } => {
                json!({ "attempts_remaining": attempts_remaining })
            }
            Self::AccountLocked { locked_until } => json!({ "locked_until": locked_until }),
            Self::HandleCooldown {
                next_change_available,
            } => {
                json!({ "next_change_available": next_change_available })
            }
            Self::RateLimited { retry_after } => json!({ "retry_after": retry_after }),
            Self::OtpLocked {
                locked_until,
                retry_after,
            } => json!({ "locked_until": locked_until, "retry_after": retry_after }),
            _ => json!({}),
        }
    }
}

impl ResponseError for IdentityError {
    fn status_code(&self) -> StatusCode {
        match self {
            Self::InvalidRequest(_)
            | Self::InvalidPhone
            | Self::InvalidPin
            | Self::InvalidHandle(_)
            | Self::InvalidOtp { .. }
            | Self::OtpExpired
            | Self::InvalidTempToken => StatusCode::BAD_REQUEST,
            Self::InvalidCredentials
            | Self::InvalidToken
            | Self::TokenExpired
            | Self::InvalidRefreshToken
            | Self::RefreshTokenExpired => StatusCode::UNAUTHORIZED,
            Self::AccountLocked { .. } | Self::Forbidden(_) => StatusCode::FORBIDDEN,
            Self::NotFound(_) | Self::PhoneNotFound | Self::AccountNotFound => {
                StatusCode::NOT_FOUND
            }
            Self::HandleTaken | Self::HandleReserved | Self::PhoneExists => StatusCode::CONFLICT,
            Self::HandleCooldown { .. }
            | Self::RateLimited { .. }
            | Self::TooManyAttempts
            | Self::OtpLocked { .. } => StatusCode::TOO_MANY_REQUESTS,
            Self::Framework(kind, _) => kind.status(),
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        if let Self::Internal(cause) = self {
            tracing::error!(error = %cause, "internal error");
        }
        let mut res = HttpResponse::build(self.status_code());
        if let Self::RateLimited { retry_after } | Self::OtpLocked { retry_after, .. } = self {
            res.insert_header((actix_web::http::header::RETRY_AFTER, *retry_after));
        }
        res.json(json!({
            "success": false,
            "error": { "code": self.code(), "message": self.to_string(), "details": self.details() }
        }))
    }
}

impl From<sea_orm::DbErr> for IdentityError {
    fn from(e: sea_orm::DbErr) -> Self {
        Self::internal(e)
    }
}

impl From<crate::core::password::PasswordError> for IdentityError {
    fn from(e: crate::core::password::PasswordError) -> Self {
        Self::internal(e)
    }
}

impl From<crate::core::jwt::JwtError> for IdentityError {
    fn from(e: crate::core::jwt::JwtError) -> Self {
        Self::internal(e)
    }
}

pub struct IdentityEnvelope;

impl Envelope for IdentityEnvelope {
    fn render(kind: FrameworkError, message: String) -> HttpResponse {
        IdentityError::Framework(kind, message).error_response()
    }
}

pub type Result<T, E = IdentityError> = std::result::Result<T, E>;
