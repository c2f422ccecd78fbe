//! The messaging error body of the spec: `{"success": false, "error": "<code>", "message"}`.

use crate::core::http::{Envelope, FrameworkError};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use serde_json::json;

#[derive(Debug, thiserror::Error)]
pub enum MessagingError {
    #[error("{0}")]
    Validation(String),
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    InsufficientCredits(String),
    #[error("{0}")]
    NotFound(String),
    #[error("this Idempotency-Key was used with a different request body")]
    IdempotencyConflict,
    #[error("too many requests; retry in {retry_after} seconds")]
    RateLimited { retry_after: i64 },
    #[error("{1}")]
    Framework(FrameworkError, String),
    #[error("internal error")]
    Internal(#[source] Box<dyn std::error::Error + Send + Sync + 'static>),
}

impl MessagingError {
    pub fn validation(m: impl Into<String>) -> Self {
        Self::Validation(m.into())
    }

    pub fn internal(e: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self::Internal(Box::new(e))
    }

    pub fn code(&self) -> &'static str {
        match self {
            Self::Validation(_) => "validation_error",
            Self::Unauthorized(_) => "unauthorized",
            Self::InsufficientCredits(_) => "insufficient_credits",
            Self::NotFound(_) => "not_found",
            Self::IdempotencyConflict => "idempotency_conflict",
            Self::RateLimited { .. } => "rate_limit_exceeded",
            Self::Framework(kind, _) => match kind {
                FrameworkError::BadRequest => "validation_error",
                FrameworkError::NotFound => "not_found",
                FrameworkError::MethodNotAllowed => "method_not_allowed",
                FrameworkError::PayloadTooLarge => "payload_too_large",
                FrameworkError::UnsupportedMediaType => "unsupported_media_type",
            },
            Self::Internal(_) => "internal_error",
        }
    }
}

impl ResponseError for MessagingError {
    fn status_code(&self) -> StatusCode {
        match self {
            Self::Validation(_) => StatusCode::BAD_REQUEST,
            Self::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            Self::InsufficientCredits(_) => StatusCode::PAYMENT_REQUIRED,
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::IdempotencyConflict => StatusCode::CONFLICT,
            Self::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            Self::Framework(kind, _) => kind.status(),
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        if let Self::Internal(cause) = self {
            tracing::error!(error = %cause, "internal error");
        }
        let mut res = HttpResponse::build(self.status_code());
        if let Self::RateLimited { retry_after } = self {
            res.insert_header((actix_web::http::header::RETRY_AFTER, *retry_after));
        }
        res.json(json!({
            "success": false,
            "error": self.code(),
            "message": self.to_string(),
        }))
    }
}

impl From<sea_orm::DbErr> for MessagingError {
    fn from(e: sea_orm::DbErr) -> Self {
        Self::internal(e)
    }
}

pub struct MessagingEnvelope;

impl Envelope for MessagingEnvelope {
    fn render(kind: FrameworkError, message: String) -> HttpResponse {
        MessagingError::Framework(kind, message).error_response()
    }
}

pub type Result<T, E = MessagingError> = std::result::Result<T, E>;
