//! Finds the actor of a session or starts it; restores running sessions at start-up.

use super::actor::{Answer, Complete, InterviewSession, Pause, Resume, Start, Stop};
use super::ports::Deps;
use super::session::{ActorError, AnswerOutcome, CompleteOutcome, StartOutcome};
use super::status;
use crate::registry::ActorRegistry;
use actix::{Arbiter, Handler, Message};
use sea_orm::{ColumnTrait, DbErr, EntityTrait, QueryFilter, QuerySelect};
use std::sync::Arc;
use switchboard_entities::interview::session;
use uuid::Uuid;

/// Cheap to clone; every clone is the same registry.
#[derive(Clone)]
pub struct Registry {
    deps: Arc<Deps>,
    actors: Arc<ActorRegistry<InterviewSession>>,
}

impl Registry {
    /// Must be called inside an actix System: the session actors run on the current
    /// arbiter, whichever worker or socket sends them a command.
    pub fn new(deps: Deps) -> Self {
        let deps = Arc::new(deps);
        let shared = deps.clone();
        Self {
            actors: ActorRegistry::new(Arbiter::current(), move |lease| {
                InterviewSession::new(lease, shared.clone())
            }),
            deps,
        }
    }

    pub fn deps(&self) -> &Deps {
        &self.deps
    }

    /// How many session actors are alive.
    pub fn live(&self) -> usize {
        self.actors.running()
    }

    /// Sends a command to the session's actor (started when none runs) and waits for its
    /// answer.
    async fn call<M, T>(&self, id: Uuid, command: M) -> Result<T, ActorError>
    where
        M: Message<Result = Result<T, ActorError>> + Clone + Send + 'static,
        T: Send + 'static,
        InterviewSession: Handler<M>,
    {
        self.actors
            .send(id, command)
            .await
            .unwrap_or(Err(ActorError::Unavailable))
    }

    pub async fn start(&self, id: Uuid) -> Result<StartOutcome, ActorError> {
        self.call(id, Start).await
    }

    pub async fn pause(&self, id: Uuid) -> Result<session::Model, ActorError> {
        self.call(id, Pause).await
    }

    pub async fn resume(&self, id: Uuid) -> Result<session::Model, ActorError> {
        self.call(id, Resume).await
    }

    pub async fn complete(&self, id: Uuid) -> Result<CompleteOutcome, ActorError> {
        self.call(id, Complete).await
    }

    pub async fn answer(&self, id: Uuid, content: String) -> Result<AnswerOutcome, ActorError> {
        self.call(id, Answer(content)).await
    }

    /// Stops the session's actor (before its rows are deleted), once the command it is
    /// handling is done.
    pub async fn stop(&self, id: Uuid) {
        if let Some(actor) = self.actors.remove(id) {
            let _ = actor.send(Stop).await;
        }
    }

    /// Starts an actor for every running session, so time limits keep running after a
    /// restart. Returns how many were restored.
    pub async fn restore_running(&self) -> Result<usize, DbErr> {
        let ids: Vec<Uuid> = session::Entity::find()
            .select_only()
            .column(session::Column::Id)
            .filter(session::Column::Status.eq(status::IN_PROGRESS))
            .into_tuple()
            .all(&self.deps.db)
            .await?;
        for id in &ids {
            self.actors.get_or_start(*id);
        }
        Ok(ids.len())
    }
}
