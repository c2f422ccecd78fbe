//! The interview service's error envelope, the same shape as identity's:
//! `{success:false, error:{code,message,details}}` (the spec leaves it open).

use crate::core::http::{Envelope, FrameworkError};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use serde_json::{json, Value};
use switchboard_actors::interview::ActorError;

#[derive(Debug, thiserror::Error)]
pub enum InterviewError {
    #[error("{0}")]
    InvalidRequest(String),
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("cannot {action} a session that is {status}")]
    InvalidState {
        action: &'static str,
        status: String,
        allowed: &'static [&'static str],
    },
    #[error("the interview session has expired")]
    Expired {
        expires_at: chrono::DateTime<chrono::Utc>,
    },
    #[error("{0}")]
    Unavailable(String),
    #[error("{1}")]
    Framework(FrameworkError, String),
    #[error("internal error")]
    Internal(#[source] Box<dyn std::error::Error + Send + Sync + 'static>),
}

impl InterviewError {
    pub fn internal(e: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self::Internal(Box::new(e))
    }

    pub fn not_found() -> Self {
        Self::NotFound("interview session not found".into())
    }

    pub fn code(&self) -> &'static str {
        match self {
            Self::InvalidRequest(_) => "INVALID_REQUEST",
            Self::Unauthorized(_) => "UNAUTHORIZED",
            Self::Forbidden(_) => "FORBIDDEN",
            Self::NotFound(_) => "NOT_FOUND",
            Self::InvalidState { .. } => "INVALID_STATE",
            Self::Expired { .. } => "SESSION_EXPIRED",
            Self::Unavailable(_) => "SERVICE_UNAVAILABLE",
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

    pub fn details(&self) -> Value {
        match self {
            Self::InvalidState {
                status, allowed, ..
            } => json!({ "status": status, "allowed_states": allowed }),
            Self::Expired { expires_at } => json!({ "expires_at": expires_at }),
            _ => json!({}),
        }
    }
}

impl From<ActorError> for InterviewError {
    fn from(e: ActorError) -> Self {
        match e {
            ActorError::NotFound => Self::not_found(),
            ActorError::InvalidState {
                action,
                status,
                allowed,
            } => Self::InvalidState {
                action,
                status,
                allowed,
            },
            ActorError::Expired { expires_at } => Self::Expired { expires_at },
            ActorError::Unavailable => Self::Unavailable(e.to_string()),
            ActorError::Db(db) => Self::internal(db),
        }
    }
}

impl From<sea_orm::DbErr> for InterviewError {
    fn from(e: sea_orm::DbErr) -> Self {
        Self::internal(e)
    }
}

impl ResponseError for InterviewError {
    fn status_code(&self) -> StatusCode {
        match self {
            Self::InvalidRequest(_) => StatusCode::BAD_REQUEST,
            Self::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            Self::Forbidden(_) => StatusCode::FORBIDDEN,
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::InvalidState { .. } => StatusCode::CONFLICT,
            Self::Expired { .. } => StatusCode::GONE,
            Self::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            Self::Framework(kind, _) => kind.status(),
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        if let Self::Internal(cause) = self {
            tracing::error!(error = %cause, "internal error");
        }
        HttpResponse::build(self.status_code()).json(json!({
            "success": false,
            "error": { "code": self.code(), "message": self.to_string(), "details": self.details() }
        }))
    }
}

pub struct InterviewEnvelope;

impl Envelope for InterviewEnvelope {
    fn render(kind: FrameworkError, message: String) -> HttpResponse {
        InterviewError::Framework(kind, message).error_response()
    }
}

pub type Result<T, E = InterviewError> = std::result::Result<T, E>;
