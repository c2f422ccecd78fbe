//! The interview service's failures in its own terms, and their codes in the core
//! [`ApiError`]. The envelope is identity's: `{success:false, error:{code,message,details}}`
//! (the spec leaves it open).

use crate::core::error::{ApiError, Kind, Nested};
use switchboard_actors::interview::{ActorError, SessionStatus};

/// Interview answers in the nested envelope, as identity does.
pub type InterviewEnvelope = Nested;

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
        status: SessionStatus,
        allowed: &'static [SessionStatus],
    },
    #[error("the interview session has expired")]
    Expired {
        expires_at: chrono::DateTime<chrono::Utc>,
    },
    #[error("{0}")]
    Unavailable(String),
}

impl InterviewError {
    pub fn not_found() -> Self {
        Self::NotFound("interview session not found".into())
    }
}

impl From<InterviewError> for ApiError {
    fn from(e: InterviewError) -> Self {
        let message = e.to_string();
        match e {
            InterviewError::InvalidRequest(_) => ApiError::bad_request(message),
            InterviewError::Unauthorized(_) => ApiError::unauthorized(message),
            InterviewError::Forbidden(_) => ApiError::forbidden(message),
            InterviewError::NotFound(_) => ApiError::not_found(message),
            InterviewError::InvalidState {
                status, allowed, ..
            } => ApiError::new(Kind::Conflict, message)
                .code("INVALID_STATE")
                .detail("status", status)
                .detail("allowed_states", allowed),
            InterviewError::Expired { expires_at } => ApiError::new(Kind::Gone, message)
                .code("SESSION_EXPIRED")
                .detail("expires_at", expires_at),
            InterviewError::Unavailable(_) => ApiError::new(Kind::Unavailable, message),
        }
    }
}

impl From<ActorError> for ApiError {
    fn from(e: ActorError) -> Self {
        match e {
            ActorError::NotFound => InterviewError::not_found().into(),
            ActorError::InvalidState {
                action,
                status,
                allowed,
            } => InterviewError::InvalidState {
                action,
                status,
                allowed,
            }
            .into(),
            ActorError::Expired { expires_at } => InterviewError::Expired { expires_at }.into(),
            ActorError::Unavailable => InterviewError::Unavailable(e.to_string()).into(),
            ActorError::Db(db) => ApiError::internal(db),
        }
    }
}

pub type Result<T, E = ApiError> = std::result::Result<T, E>;
