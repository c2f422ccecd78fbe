//! The `InterviewSession` actor: one per interview, found or started by [`Registry`].
//!
//! The actor is an actix actor; HTTP handlers and sockets send it one message per command
//! and await the answer. It owns the status machine (pending → in_progress ⇄ paused →
//! completed), the question sequence and the time limit, which only runs while
//! `in_progress`. It writes every message, score and report to the database before it
//! emits the matching event, so a crash loses nothing that a client has seen.
//!
//! Files, each readable on its own: `model` (domain values and wire shapes), `evidence`
//! (what an answer contains and its score), `report` (the final report), `ports` (what the
//! actor needs from outside, bundled as [`Deps`]), `session` (the state and its commands),
//! `actor` (the actix actor and its messages) and `registry` (finding or starting it).

mod actor;
pub mod evidence;
pub mod forward;
mod model;
mod ports;
mod registry;
pub mod report;
mod session;

pub use model::*;
pub use ports::{Broadcast, CompletionHook, Deps, Interviewer, TimeSource, Timing};
pub use registry::Registry;
pub use session::{ActorError, AnswerOutcome, CompleteOutcome, StartOutcome};

/// The status machine itself lives on the stored state.
pub use switchboard_entities::interview::session::{SessionMove, SessionStatus};
