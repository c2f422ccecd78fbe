//! The identity service's failures with the spec's codes, and how each becomes the core
//! [`ApiError`] (envelope `{success:false, error:{code,message,details}}`).

use crate::core::error::{ApiError, Kind, Nested};

pub type IdentityEnvelope = Nested;

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
    #[error("a code was sent moments ago; wait before asking for another")]
    OtpCooldown { retry_after: i64 },
    #[error("too many codes were texted to numbers of this country lately; try again later")]
    CountrySmsLimit { retry_after: i64 },
    #[error("too many wrong codes; request a new one")]
    TooManyAttempts,
    #[error("too many wrong codes for this phone number in 24 hours; try again later")]
    OtpLocked {
        locked_until: chrono::DateTime<chrono::Utc>,
        retry_after: i64,
    },
}

impl IdentityError {
    fn kind(&self) -> Kind {
        match self {
            Self::InvalidRequest(_)
            | Self::InvalidPhone
            | Self::InvalidPin
            | Self::InvalidHandle(_)
            | Self::InvalidOtp { .. }
            | Self::OtpExpired
            | Self::InvalidTempToken => Kind::BadRequest,
            Self::InvalidCredentials
            | Self::InvalidToken
            | Self::TokenExpired
            | Self::InvalidRefreshToken
            | Self::RefreshTokenExpired => Kind::Unauthorized,
            Self::AccountLocked { .. } | Self::Forbidden(_) => Kind::Forbidden,
            Self::NotFound(_) | Self::PhoneNotFound | Self::AccountNotFound => Kind::NotFound,
            Self::HandleTaken | Self::HandleReserved | Self::PhoneExists => Kind::Conflict,
            Self::HandleCooldown { .. }
            | Self::RateLimited { .. }
            | Self::OtpCooldown { .. }
            | Self::CountrySmsLimit { .. }
            | Self::TooManyAttempts
            | Self::OtpLocked { .. } => Kind::TooManyRequests,
        }
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
            Self::OtpCooldown { .. } => "OTP_COOLDOWN",
            Self::CountrySmsLimit { .. } => "COUNTRY_SMS_LIMIT",
            Self::TooManyAttempts => "TOO_MANY_ATTEMPTS",
            Self::OtpLocked { .. } => "OTP_LOCKED",
        }
    }
}

impl From<IdentityError> for ApiError {
    fn from(e: IdentityError) -> Self {
        let err = ApiError::new(e.kind(), e.to_string()).code(e.code());
        match e {
            IdentityError::InvalidOtp { attempts_remaining } => {
                err.detail("attempts_remaining", attempts_remaining)
            }
            IdentityError::AccountLocked { locked_until } => {
                err.detail("locked_until", locked_until)
            }
            IdentityError::HandleCooldown {
                next_change_available,
            } => err.detail("next_change_available", next_change_available),
            IdentityError::RateLimited { retry_after }
            | IdentityError::OtpCooldown { retry_after }
            | IdentityError::CountrySmsLimit { retry_after } => err
                .retry_after(retry_after)
                .detail("retry_after", retry_after),
            IdentityError::OtpLocked {
                locked_until,
                retry_after,
            } => err
                .retry_after(retry_after)
                .detail("locked_until", locked_until)
                .detail("retry_after", retry_after),
            _ => err,
        }
    }
}

pub type Result<T, E = ApiError> = std::result::Result<T, E>;
