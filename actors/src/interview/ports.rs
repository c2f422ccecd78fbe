//! What the actor needs from outside: the port traits the application implements, and
//! [`Deps`], which bundles them with the database and the timer settings ([`Timing`]) for
//! every session the registry starts.

use super::model::{AnswerScore, JobProfile, Question, Report, Turn};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sea_orm::{DatabaseConnection, DatabaseTransaction, DbErr};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use switchboard_entities::interview::session;
use uuid::Uuid;

/// The current time; tests move it forward instead of sleeping.
pub trait TimeSource: Send + Sync + 'static {
    fn now(&self) -> DateTime<Utc>;
}

/// The interviewer (AI port). Infallible by contract: an adapter that talks to a model
/// falls back to a local interviewer itself, so a session never stalls on the model.
#[async_trait]
pub trait Interviewer: Send + Sync + 'static {
    /// Skills the job asks for, used to find gaps in the report.
    fn required_skills(&self, job: &JobProfile) -> Vec<String>;
    async fn greeting(&self, job: &JobProfile) -> String;
    /// Question `number` (1-based) of `total`, given the conversation so far.
    async fn question(
        &self,
        job: &JobProfile,
        number: u32,
        total: u32,
        history: &[Turn],
    ) -> Question;
    async fn score(&self, job: &JobProfile, question: &Question, answer: &str) -> AnswerScore;
}

/// Fan-out of a session's events to the sockets that joined it.
pub trait Broadcast: Send + Sync + 'static {
    fn emit(&self, session_id: Uuid, event: &str, data: &Value);
}

/// The completion side effects (e.g. the completion webhook). `record` runs inside the
/// transaction that completes the session, so what it writes exists exactly when the
/// completion does (a crash between the two loses nothing); an error there rolls the
/// completion back. `completed` runs after the commit, before `interview_complete` is
/// announced, with what `record` returned; its errors are the hook's to log.
#[async_trait]
pub trait CompletionHook: Send + Sync + 'static {
    async fn record(
        &self,
        txn: &DatabaseTransaction,
        session: &session::Model,
        report: &Report,
    ) -> Result<Option<Uuid>, DbErr>;
    fn completed(&self, recorded: Option<Uuid>);
}

/// How the actor's timers behave. The time limit is measured on the injected clock; `tick`
/// is how often a running session looks at that clock, so a test that moves the clock sees
/// the session complete within one tick.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    pub tick: Duration,
    /// An actor with no running timer stops after this long without a command.
    pub idle: Duration,
}

impl Default for Timing {
    fn default() -> Self {
        Self {
            tick: Duration::from_millis(500),
            idle: Duration::from_secs(300),
        }
    }
}

pub struct Deps {
    pub db: DatabaseConnection,
    pub clock: Arc<dyn TimeSource>,
    pub ai: Arc<dyn Interviewer>,
    pub broadcast: Arc<dyn Broadcast>,
    pub hook: Arc<dyn CompletionHook>,
    pub timing: Timing,
}
