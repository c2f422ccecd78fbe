//! One actix actor per id (an interview session, a webhook endpoint…), found or started on
//! demand. An actor stops when it has nothing to do and gives its place back; the next
//! message starts a fresh one, which reads its state back from the database. A request that
//! reaches an actor just stopping is not lost: it goes to the fresh one.
//!
//! On several nodes an [`Ownership`] decides where an id's actor runs: [`ActorRegistry::route`]
//! answers this node's actor, or the node that owns it, to which the caller forwards.

use actix::prelude::*;
use dashmap::DashMap;
use sea_orm::DbErr;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use uuid::Uuid;

/// Retries of a message whose actor stopped before handling it.
const TRIES: usize = 3;

type Make<A> = Box<dyn Fn(Lease<A>) -> A + Send + Sync>;

/// Who runs an id's actor when several nodes share the database: one owner per id.
pub enum Owner {
    /// This node (it holds the lease now).
    Here,
    /// Another node, by its id.
    Elsewhere(String),
}

/// One owner per id across the nodes (a lease in the database, renewed by its node).
pub trait Ownership: Send + Sync + 'static {
    /// Takes the id for this node unless another live node holds it.
    fn claim(&self, id: Uuid) -> BoxFuture<'_, Result<Owner, DbErr>>;
    /// Gives the id back: this node's actor stopped.
    fn release(&self, id: Uuid);
}

/// Carries a command, as plain data, to the node that owns an id (the service's cluster
/// bus); the owner answers through what the service serves for the actor's kind.
pub trait Relay: Send + Sync + 'static {
    /// The owner's answer; None when it did not answer in time.
    fn ask(
        &self,
        node: &str,
        kind: &'static str,
        id: Uuid,
        command: serde_json::Value,
    ) -> BoxFuture<'_, Option<serde_json::Value>>;
    /// Hands the command over without waiting (what it says must also be in the database).
    fn tell(&self, node: &str, kind: &'static str, id: Uuid, command: serde_json::Value);
}

/// How the nodes of a cluster share the actors of one kind: who owns each id, and how a
/// command reaches its owner.
#[derive(Clone)]
pub struct Placement {
    pub ownership: Arc<dyn Ownership>,
    pub relay: Arc<dyn Relay>,
}

/// Where a command for an id goes.
pub enum Route<A: Actor> {
    Here(Addr<A>),
    /// To the node that owns the id.
    Elsewhere(String),
}

struct Slot<A: Actor> {
    generation: u64,
    addr: Addr<A>,
}

/// The running actors of one kind, by id.
pub struct ActorRegistry<A: Actor<Context = Context<A>>> {
    slots: DashMap<Uuid, Slot<A>>,
    generation: AtomicU64,
    /// Where the actors run, whichever thread or task asks for one.
    arbiter: ArbiterHandle,
    make: Make<A>,
    /// None: one node, every actor runs here.
    ownership: Option<Arc<dyn Ownership>>,
}

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// An actor's place in its registry. The actor gives it back when it stops; a successor
/// started for the same id meanwhile keeps its own place.
pub struct Lease<A: Actor<Context = Context<A>>> {
    registry: Weak<ActorRegistry<A>>,
    id: Uuid,
    generation: u64,
}

impl<A: Actor<Context = Context<A>>> Lease<A> {
    pub fn id(&self) -> Uuid {
        self.id
    }

    /// Leaves the registry: the next message for the id starts a fresh actor (here, or on
    /// whichever node claims it first).
    pub fn release(&self) {
        if let Some(registry) = self.registry.upgrade() {
            let left = registry
                .slots
                .remove_if(&self.id, |_, slot| slot.generation == self.generation);
            if let (Some(_), Some(ownership)) = (left, &registry.ownership) {
                ownership.release(self.id);
            }
        }
    }
}

impl<A: Actor<Context = Context<A>> + Send> ActorRegistry<A> {
    /// `make` builds the actor of an id; the actors run on `arbiter`.
    pub fn new(
        arbiter: ArbiterHandle,
        make: impl Fn(Lease<A>) -> A + Send + Sync + 'static,
    ) -> Arc<Self> {
        Self::owned(arbiter, make, None)
    }

    /// As [`ActorRegistry::new`], each id run on the node `ownership` names.
    pub fn owned(
        arbiter: ArbiterHandle,
        make: impl Fn(Lease<A>) -> A + Send + Sync + 'static,
        ownership: Option<Arc<dyn Ownership>>,
    ) -> Arc<Self> {
        Arc::new(Self {
            slots: DashMap::new(),
            generation: AtomicU64::new(0),
            arbiter,
            make: Box::new(make),
            ownership,
        })
    }

    /// Where a command for `id` goes: the actor running here, else the owner's node, else
    /// (unowned) an actor started here after claiming the id.
    pub async fn route(self: &Arc<Self>, id: Uuid) -> Result<Route<A>, DbErr> {
        if let Some(slot) = self.slots.get(&id) {
            if slot.addr.connected() {
                return Ok(Route::Here(slot.addr.clone()));
            }
        }
        let Some(ownership) = &self.ownership else {
            return Ok(Route::Here(self.get_or_start(id)));
        };
        Ok(match ownership.claim(id).await? {
            Owner::Here => Route::Here(self.get_or_start(id)),
            Owner::Elsewhere(node) => Route::Elsewhere(node),
        })
    }

    /// Whether the id's actor runs here now.
    pub fn is_running(&self, id: Uuid) -> bool {
        self.slots.get(&id).is_some_and(|s| s.addr.connected())
    }

    /// Whether several nodes share the actors of this kind.
    pub fn is_owned(&self) -> bool {
        self.ownership.is_some()
    }

    fn start(self: &Arc<Self>, id: Uuid) -> Slot<A> {
        let generation = self.generation.fetch_add(1, Ordering::Relaxed);
        let actor = (self.make)(Lease {
            registry: Arc::downgrade(self),
            id,
            generation,
        });
        Slot {
            generation,
            addr: A::start_in_arbiter(&self.arbiter, move |_| actor),
        }
    }

    /// The address of the id's actor, started when none is running.
    pub fn get_or_start(self: &Arc<Self>, id: Uuid) -> Addr<A> {
        let mut slot = self.slots.entry(id).or_insert_with(|| self.start(id));
        if !slot.addr.connected() {
            *slot = self.start(id);
        }
        slot.addr.clone()
    }

    /// Sends a message and waits for the answer. An actor that stops drops the messages it
    /// has not handled (`Closed`); such a message goes to a fresh actor.
    pub async fn send<M>(self: &Arc<Self>, id: Uuid, msg: M) -> Result<M::Result, MailboxError>
    where
        M: Message + Clone + Send + 'static,
        M::Result: Send,
        A: Handler<M>,
    {
        let mut answer = Err(MailboxError::Closed);
        for _ in 0..TRIES {
            answer = self.get_or_start(id).send(msg.clone()).await;
            if !matches!(answer, Err(MailboxError::Closed)) {
                break;
            }
        }
        answer
    }

    /// Hands a message over without waiting (a full mailbox takes it all the same). It is
    /// lost if the actor stops before handling it, so the state it is about must be in the
    /// database, where the next actor reads it.
    pub fn do_send<M>(self: &Arc<Self>, id: Uuid, mut msg: M)
    where
        M: Message + Send + 'static,
        M::Result: Send,
        A: Handler<M>,
    {
        for _ in 0..TRIES {
            match self.get_or_start(id).try_send(msg) {
                Ok(()) => return,
                Err(SendError::Full(m)) => {
                    self.get_or_start(id).do_send(m);
                    return;
                }
                // Stopped between lookup and send: the next lookup starts a fresh actor.
                Err(SendError::Closed(m)) => msg = m,
            }
        }
    }

    /// Takes the id's actor out of the registry (to stop it); the next message starts another.
    pub fn remove(&self, id: Uuid) -> Option<Addr<A>> {
        self.slots.remove(&id).map(|(_, slot)| slot.addr)
    }

    /// Takes every actor out of the registry (to stop them).
    pub fn drain(&self) -> Vec<Addr<A>> {
        let ids: Vec<Uuid> = self.slots.iter().map(|s| *s.key()).collect();
        ids.into_iter().filter_map(|id| self.remove(id)).collect()
    }

    /// How many actors are running.
    pub fn running(&self) -> usize {
        self.slots.iter().filter(|s| s.addr.connected()).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// Answers which start of the actor it is; stops on `Halt`.
    struct Probe {
        lease: Lease<Self>,
        start: usize,
    }

    impl Actor for Probe {
        type Context = Context<Self>;
        fn stopped(&mut self, _: &mut Self::Context) {
            self.lease.release();
        }
    }

    #[derive(Message, Clone)]
    #[rtype(result = "usize")]
    struct Which;

    #[derive(Message)]
    #[rtype(result = "()")]
    struct Halt;

    impl Handler<Which> for Probe {
        type Result = usize;
        fn handle(&mut self, _: Which, _: &mut Self::Context) -> usize {
            self.start
        }
    }

    impl Handler<Halt> for Probe {
        type Result = ();
        fn handle(&mut self, _: Halt, ctx: &mut Self::Context) {
            ctx.stop();
        }
    }

    fn registry() -> Arc<ActorRegistry<Probe>> {
        let starts = AtomicUsize::new(0);
        ActorRegistry::new(Arbiter::current(), move |lease| Probe {
            lease,
            start: starts.fetch_add(1, Ordering::Relaxed) + 1,
        })
    }

    #[actix::test]
    async fn a_message_queued_behind_a_stop_reaches_a_fresh_actor() {
        let reg = registry();
        let id = Uuid::new_v4();
        assert_eq!(reg.send(id, Which).await.unwrap(), 1);
        // Both wait in the mailbox of start 1, which stops on the first and drops the second.
        reg.get_or_start(id).do_send(Halt);
        assert_eq!(reg.send(id, Which).await.unwrap(), 2);
        assert_eq!(reg.running(), 1);
    }

    #[actix::test]
    async fn a_stopping_actor_gives_back_only_its_own_place() {
        let reg = registry();
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        assert_eq!(reg.send(a, Which).await.unwrap(), 1);
        assert_eq!(reg.send(b, Which).await.unwrap(), 2);
        reg.get_or_start(b).send(Halt).await.unwrap();
        assert_eq!(reg.slots.len(), 1, "b left when it stopped");
        // Taken out and succeeded before it stops: its stop leaves the successor in place.
        let first = reg.remove(a).unwrap();
        assert_eq!(reg.send(a, Which).await.unwrap(), 3);
        first.send(Halt).await.unwrap();
        assert_eq!(reg.send(a, Which).await.unwrap(), 3);
        assert_eq!(reg.send(b, Which).await.unwrap(), 4);
    }
}
