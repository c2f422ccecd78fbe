//! The messaging service's failures with the spec's codes, how each becomes the core
//! [`ApiError`], and the spec's body: `{"success": false, "error": "<code>", "message"}`.

use crate::core::error::{snake_code, ApiError, Envelope, Kind};
use serde::Serialize;
use serde_json::{json, Value};
use utoipa::openapi::{RefOr, Schema};
use utoipa::{PartialSchema, ToSchema};

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
    /// The recipient opted out of this workspace's messages on this channel.
    #[error("{0}")]
    OptedOut(String),
}

impl MessagingError {
    pub fn validation(m: impl Into<String>) -> Self {
        Self::Validation(m.into())
    }
}

impl From<MessagingError> for ApiError {
    fn from(e: MessagingError) -> Self {
        let message = e.to_string();
        match e {
            MessagingError::Validation(_) => ApiError::bad_request(message),
            MessagingError::Unauthorized(_) => ApiError::unauthorized(message),
            MessagingError::InsufficientCredits(_) => {
                ApiError::new(Kind::PaymentRequired, message).code("insufficient_credits")
            }
            MessagingError::NotFound(_) => ApiError::not_found(message),
            MessagingError::IdempotencyConflict => {
                ApiError::new(Kind::Conflict, message).code("idempotency_conflict")
            }
            MessagingError::OptedOut(_) => {
                ApiError::new(Kind::Unprocessable, message).code(OPTED_OUT)
            }
        }
    }
}

/// The code of a send to a suppressed recipient (the API's 422, a bulk failure's reason).
pub const OPTED_OUT: &str = "recipient_opted_out";

pub struct MessagingEnvelope;

impl Envelope for MessagingEnvelope {
    fn code(kind: Kind) -> &'static str {
        snake_code(kind)
    }

    fn body(err: &ApiError, code: &str) -> Value {
        json!({ "success": false, "error": code, "message": err.message() })
    }

    fn schema() -> RefOr<Schema> {
        <ErrorEnvelope as PartialSchema>::schema()
    }
}

pub type Result<T, E = ApiError> = std::result::Result<T, E>;

/// `{success: false, error: "<code>", message}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorEnvelope {
    pub success: bool,
    /// validation_error, unauthorized, insufficient_credits, not_found, rate_limit_exceeded,
    /// idempotency_conflict, recipient_opted_out, method_not_allowed, payload_too_large, unsupported_media_type,
    /// internal_error.
    pub error: String,
    pub message: String,
}
