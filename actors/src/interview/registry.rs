//! Finds the actor of a session or starts it; restores running sessions at start-up.

use super::actor::{self, ActorError, Command, Reply};
use super::ports::{Broadcast, CompletionHook, Interviewer, TimeSource};
use super::status;
use dashmap::mapref::entry::Entry;
use dashmap::DashMap;
use sea_orm::{ColumnTrait, DatabaseConnection, DbErr, EntityTrait, QueryFilter, QuerySelect};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use switchboard_entities::interview::session;
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

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

pub(crate) struct Slot {
    pub generation: u64,
    pub tx: mpsc::Sender<Command>,
}

pub(crate) struct Inner {
    pub deps: Arc<Deps>,
    pub actors: DashMap<Uuid, Slot>,
    generation: AtomicU64,
}

/// Cheap to clone; every clone is the same registry.
#[derive(Clone)]
pub struct Registry(Arc<Inner>);

impl Registry {
    pub fn new(deps: Deps) -> Self {
        Self(Arc::new(Inner {
            deps: Arc::new(deps),
            actors: DashMap::new(),
            generation: AtomicU64::new(0),
        }))
    }

    pub fn deps(&self) -> &Deps {
        &self.0.deps
    }

    /// How many session actors are alive.
    pub fn live(&self) -> usize {
        self.0.actors.len()
    }

    /// The mailbox of the session's actor, starting the actor when none is alive. The
    /// actor loads the session itself, so two callers never start two actors for one id.
    fn mailbox(&self, id: Uuid) -> mpsc::Sender<Command> {
        let spawn = |inner: &Arc<Inner>| {
            let (tx, rx) = mpsc::channel(64);
            let generation = inner.generation.fetch_add(1, Ordering::Relaxed);
            tokio::spawn(actor::run(inner.clone(), id, generation, rx));
            Slot { generation, tx }
        };
        match self.0.actors.entry(id) {
            Entry::Occupied(mut e) => {
                if e.get().tx.is_closed() {
                    e.insert(spawn(&self.0));
                }
                e.get().tx.clone()
            }
            Entry::Vacant(v) => v.insert(spawn(&self.0)).tx.clone(),
        }
    }

    /// Sends a command and waits for its answer. An actor that is just stopping closes
    /// its mailbox; the command then goes to a fresh actor.
    pub(crate) async fn call<R>(
        &self,
        id: Uuid,
        make: impl Fn(Reply<R>) -> Command,
    ) -> Result<R, ActorError> {
        for _ in 0..3 {
            let (tx, rx) = oneshot::channel();
            if self.mailbox(id).send(make(tx)).await.is_err() {
                continue;
            }
            match rx.await {
                Ok(r) => return r,
                Err(_) => continue,
            }
        }
        Err(ActorError::Unavailable)
    }

    pub async fn start(&self, id: Uuid) -> Result<actor::StartOutcome, ActorError> {
        self.call(id, Command::Start).await
    }

    pub async fn pause(&self, id: Uuid) -> Result<session::Model, ActorError> {
        self.call(id, Command::Pause).await
    }

    pub async fn resume(&self, id: Uuid) -> Result<session::Model, ActorError> {
        self.call(id, Command::Resume).await
    }

    pub async fn complete(&self, id: Uuid) -> Result<actor::CompleteOutcome, ActorError> {
        self.call(id, Command::Complete).await
    }

    pub async fn answer(
        &self,
        id: Uuid,
        content: String,
    ) -> Result<actor::AnswerOutcome, ActorError> {
        self.call(id, |r| Command::Answer(content.clone(), r)).await
    }

    /// Stops the session's actor (before its rows are deleted).
    pub async fn stop(&self, id: Uuid) {
        if let Some((_, slot)) = self.0.actors.remove(&id) {
            let (tx, rx) = oneshot::channel();
            if slot.tx.send(Command::Stop(tx)).await.is_ok() {
                let _ = rx.await;
            }
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
            .all(&self.0.deps.db)
            .await?;
        for id in &ids {
            self.mailbox(*id);
        }
        Ok(ids.len())
    }
}
