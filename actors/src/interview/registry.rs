//! Finds the actor of a session or starts it; restores running sessions at start-up (one
//! node), or adopts the running sessions no live node owns (several nodes). On several nodes
//! a command for a session another node owns is forwarded there.

use super::actor::{Answer, Complete, InterviewSession, Pause, Resume, Start, Stop};
use super::forward::{self, Command, Outcome, WireError};
use super::ports::Deps;
use super::session::{ActorError, AnswerOutcome, CompleteOutcome, StartOutcome};
use super::SessionStatus;
use crate::registry::{ActorRegistry, Placement, Reached, Rerun, Route};
use actix::{Arbiter, Handler, Message};
use sea_orm::sea_query::Query;
use sea_orm::{ColumnTrait, DbErr, EntityTrait, QueryFilter, QuerySelect};
use std::sync::Arc;
use switchboard_entities::core::actor_lease as lease;
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
    /// arbiter, whichever worker or socket sends them a command. Without `placement` every
    /// session runs here.
    pub fn new(deps: Deps, placement: Option<Placement>) -> Self {
        let deps = Arc::new(deps);
        let shared = deps.clone();
        Self {
            actors: ActorRegistry::owned(
                Arbiter::current(),
                move |lease| InterviewSession::new(lease, shared.clone()),
                placement,
            ),
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

    /// Runs `command` on the session's actor, here or on the node that owns it.
    async fn run(&self, id: Uuid, command: Command) -> Result<Outcome, ActorError> {
        // An answer run twice would answer the next question too.
        match self.actors.reach(id, &command, Rerun::Unsafe).await? {
            Reached::Here => self.run_here(id, command).await,
            Reached::There(answer) => answer
                .and_then(|a| serde_json::from_value::<forward::Answer>(a).ok())
                .unwrap_or(Err(WireError::Unavailable))
                .map_err(ActorError::from),
        }
    }

    /// Runs a command another node forwarded: here, when this node owns the session (or
    /// can claim it); never forwarded again, so two nodes that disagree cannot pass it on
    /// and on.
    pub async fn run_forwarded(&self, id: Uuid, command: serde_json::Value) -> serde_json::Value {
        let answer: forward::Answer = match serde_json::from_value::<Command>(command) {
            Err(_) => Err(WireError::Unavailable),
            Ok(command) => match self.actors.route(id).await {
                Ok(Route::Here(_)) => self.run_here(id, command).await.map_err(WireError::from),
                Ok(Route::Elsewhere(_)) => Err(WireError::Unavailable),
                Err(e) => Err(ActorError::Db(e).into()),
            },
        };
        serde_json::to_value(answer).unwrap_or_default()
    }

    async fn run_here(&self, id: Uuid, command: Command) -> Result<Outcome, ActorError> {
        Ok(match command {
            Command::Start => Outcome::Started(Box::new(self.call(id, Start).await?)),
            Command::Pause => Outcome::Changed(Box::new(self.call(id, Pause).await?)),
            Command::Resume => Outcome::Changed(Box::new(self.call(id, Resume).await?)),
            Command::Complete => Outcome::Completed(Box::new(self.call(id, Complete).await?)),
            Command::Answer { content } => {
                Outcome::Answered(Box::new(self.call(id, Answer(content)).await?))
            }
        })
    }

    pub async fn start(&self, id: Uuid) -> Result<StartOutcome, ActorError> {
        match self.run(id, Command::Start).await? {
            Outcome::Started(o) => Ok(*o),
            _ => Err(ActorError::Unavailable),
        }
    }

    pub async fn pause(&self, id: Uuid) -> Result<session::Model, ActorError> {
        match self.run(id, Command::Pause).await? {
            Outcome::Changed(o) => Ok(*o),
            _ => Err(ActorError::Unavailable),
        }
    }

    pub async fn resume(&self, id: Uuid) -> Result<session::Model, ActorError> {
        match self.run(id, Command::Resume).await? {
            Outcome::Changed(o) => Ok(*o),
            _ => Err(ActorError::Unavailable),
        }
    }

    pub async fn complete(&self, id: Uuid) -> Result<CompleteOutcome, ActorError> {
        match self.run(id, Command::Complete).await? {
            Outcome::Completed(o) => Ok(*o),
            _ => Err(ActorError::Unavailable),
        }
    }

    pub async fn answer(&self, id: Uuid, content: String) -> Result<AnswerOutcome, ActorError> {
        match self.run(id, Command::Answer { content }).await? {
            Outcome::Answered(o) => Ok(*o),
            _ => Err(ActorError::Unavailable),
        }
    }

    /// Stops the session's actor (before its rows are deleted), once the command it is
    /// handling is done.
    pub async fn stop(&self, id: Uuid) {
        if let Some(actor) = self.actors.remove(id) {
            let _ = actor.send(Stop).await;
        }
    }

    /// Starts an actor for every running session no live node runs, so time limits keep
    /// running after a restart (one node) or after their node died (several nodes: each
    /// claims its lease first; a session another node owns is left to it). Returns how many
    /// started here.
    pub async fn adopt_running(&self) -> Result<usize, DbErr> {
        let mut running = session::Entity::find()
            .select_only()
            .column(session::Column::Id)
            .filter(session::Column::Status.eq(SessionStatus::InProgress));
        if self.is_shared() {
            // Only those without a live lease: a sweep reads the orphans, not every session.
            let owned = Query::select()
                .column(lease::Column::ActorId)
                .from(lease::Entity)
                .and_where(lease::Column::Kind.eq(forward::KIND))
                .and_where(lease::Column::ExpiresAt.gte(self.deps.clock.now()))
                .to_owned();
            running = running.filter(session::Column::Id.not_in_subquery(owned));
        }
        let ids: Vec<Uuid> = running.into_tuple().all(&self.deps.db).await?;
        let mut adopted = 0;
        for id in ids {
            if self.actors.is_running(id) {
                continue;
            }
            if let Route::Here(_) = self.actors.route(id).await? {
                adopted += 1;
            }
        }
        Ok(adopted)
    }

    /// Whether several nodes share the sessions.
    pub fn is_shared(&self) -> bool {
        self.actors.is_owned()
    }
}
