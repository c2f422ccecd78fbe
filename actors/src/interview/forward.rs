//! Commands for a session whose actor runs on another node, and their answers, as plain data
//! (the service's [`Relay`](crate::registry::Relay) carries them to the owner and back).

use super::session::{invalid, ActorError, AnswerOutcome, CompleteOutcome, StartOutcome};
use super::{SessionMove, SessionStatus};
use chrono::{DateTime, Utc};
use sea_orm::DbErr;
use serde::{Deserialize, Serialize};
use switchboard_entities::core::actor_lease::ActorKind;
use switchboard_entities::interview::session;

/// The kind of actor leased per session (`core_actor_leases.kind`).
pub const KIND: ActorKind = ActorKind::InterviewSession;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum Command {
    Start,
    Pause,
    Resume,
    Complete,
    Answer { content: String },
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    Started(Box<StartOutcome>),
    /// Paused or resumed: the session as it is now.
    Changed(Box<session::Model>),
    Completed(Box<CompleteOutcome>),
    Answered(Box<AnswerOutcome>),
}

/// An [`ActorError`] as it crosses the bus.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "error", rename_all = "snake_case")]
pub enum WireError {
    NotFound,
    InvalidState {
        action: String,
        status: SessionStatus,
    },
    Expired {
        expires_at: DateTime<Utc>,
    },
    Db {
        message: String,
    },
    Unavailable,
}

impl From<ActorError> for WireError {
    fn from(e: ActorError) -> Self {
        match e {
            ActorError::NotFound => Self::NotFound,
            ActorError::InvalidState { action, status, .. } => Self::InvalidState {
                action: action.to_owned(),
                status,
            },
            ActorError::Expired { expires_at } => Self::Expired { expires_at },
            ActorError::Db(e) => Self::Db {
                message: e.to_string(),
            },
            ActorError::Unavailable => Self::Unavailable,
        }
    }
}

impl From<WireError> for ActorError {
    fn from(e: WireError) -> Self {
        match e {
            WireError::NotFound => Self::NotFound,
            WireError::InvalidState { action, status } => match SessionMove::parse(&action) {
                Some(m) => invalid(m, status),
                // A node of another version named an action this one does not know.
                None => Self::Unavailable,
            },
            WireError::Unavailable => Self::Unavailable,
            WireError::Expired { expires_at } => Self::Expired { expires_at },
            WireError::Db { message } => Self::Db(DbErr::Custom(message)),
        }
    }
}

/// The answer to a forwarded command.
pub type Answer = Result<Outcome, WireError>;
