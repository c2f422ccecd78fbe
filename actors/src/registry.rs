//! One actix actor per id (an interview session, a webhook endpoint…), found or started on
//! demand. An actor stops when it has nothing to do and gives its place back; the next
//! message starts a fresh one, which reads its state back from the database. A request that
//! reaches an actor just stopping is not lost: it goes to the fresh one.
//!
//! On several nodes a [`Placement`] decides where an id's actor runs: [`ActorRegistry::reach`]
//! answers that the command runs here, or relays it to the node that owns the id. An owner
//! whose node left the cluster is taken over at once; an actor whose id another node took
//! is retired at this node's next check.

use actix::prelude::*;
use dashmap::DashMap;
use sea_orm::DbErr;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;
use switchboard_entities::core::actor_lease::ActorKind;
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
    /// Takes the id from `node`, which left the cluster; claims it as usual if `node` no
    /// longer holds it.
    fn take_over<'a>(&'a self, id: Uuid, node: &'a str) -> BoxFuture<'a, Result<Owner, DbErr>>;
    /// Gives the id back: this node's actor stopped.
    fn release(&self, id: Uuid);
    /// Every id this node holds now.
    fn held(&self) -> BoxFuture<'_, Result<std::collections::HashSet<Uuid>, DbErr>>;
    /// How often this node checks that it still holds the ids of its running actors.
    fn check_every(&self) -> Duration;
}

/// Why the owner of an id gave no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unanswered {
    /// Its node is not in the cluster any more (it died) and never heard the command: its
    /// ids may be taken over.
    Gone,
    /// Its node heard the command, then left the cluster before answering: it may have run
    /// it. Its ids may be taken over.
    Lost,
    /// It did not answer in time.
    Late,
}

/// Whether running a command twice does what running it once does (see
/// [`ActorRegistry::reach`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rerun {
    /// It is: a command whose owner died while running it runs again on the node that
    /// takes the id over.
    Safe,
    /// It is not: such a command has no answer (the caller says "try again", and may find
    /// it done).
    Unsafe,
}

/// Carries a command, as plain data, to the node that owns an id (the service's cluster
/// bus); the owner answers through what the service serves for the actor's kind.
pub trait Relay: Send + Sync + 'static {
    /// The owner's answer.
    fn ask(
        &self,
        node: &str,
        kind: ActorKind,
        id: Uuid,
        command: serde_json::Value,
    ) -> BoxFuture<'_, Result<serde_json::Value, Unanswered>>;
    /// Hands the command over without waiting for it to be handled (what it says must
    /// also be in the database).
    fn tell(
        &self,
        node: &str,
        kind: ActorKind,
        id: Uuid,
        command: serde_json::Value,
    ) -> BoxFuture<'_, Result<(), Unanswered>>;
}

/// Whether [`ActorRegistry::place`] waits for the owner's answer.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wait {
    ForAnswer(Rerun),
    No,
}

/// How the nodes of a cluster share the actors of one kind: who owns each id, and how a
/// command reaches its owner.
#[derive(Clone)]
pub struct Placement {
    pub kind: ActorKind,
    pub ownership: Arc<dyn Ownership>,
    pub relay: Arc<dyn Relay>,
}

/// Stops an actor whose id another node took over (see [`ActorRegistry::owned`]).
#[derive(Message)]
#[rtype(result = "()")]
pub struct Retire;

/// Where a command for an id went (see [`ActorRegistry::reach`]).
pub enum Reached {
    /// This node owns the id now: run the command here.
    Here,
    /// The owner's answer; None when none came in time.
    There(Option<serde_json::Value>),
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
    placement: Option<Placement>,
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
            if let (Some(_), Some(placement)) = (left, &registry.placement) {
                placement.ownership.release(self.id);
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
        Self::build(arbiter, Box::new(make), None)
    }

    fn build(arbiter: ArbiterHandle, make: Make<A>, placement: Option<Placement>) -> Arc<Self> {
        Arc::new(Self {
            slots: DashMap::new(),
            generation: AtomicU64::new(0),
            arbiter,
            make,
            placement,
        })
    }

    /// As [`ActorRegistry::new`], each id run on the node `placement` names (None: here).
    /// Every [`Ownership::check_every`] the actors whose ids this node no longer holds are
    /// retired: another node took them over while this one was off the bus.
    pub fn owned(
        arbiter: ArbiterHandle,
        make: impl Fn(Lease<A>) -> A + Send + Sync + 'static,
        placement: Option<Placement>,
    ) -> Arc<Self>
    where
        A: Handler<Retire>,
    {
        let every = placement.as_ref().map(|p| p.ownership.check_every());
        let registry = Self::build(arbiter, Box::new(make), placement);
        let Some(every) = every else {
            return registry;
        };
        let weak = Arc::downgrade(&registry);
        registry.arbiter.spawn(async move {
            loop {
                actix::clock::sleep(every).await;
                let Some(registry) = weak.upgrade() else {
                    return;
                };
                if let Err(e) = registry.retire_lost().await {
                    tracing::warn!(error = %e, "checking this node's actor leases failed");
                }
            }
        });
        registry
    }

    /// Retires the running actors whose ids this node no longer holds; how many.
    pub async fn retire_lost(&self) -> Result<usize, DbErr>
    where
        A: Handler<Retire>,
    {
        let Some(placement) = &self.placement else {
            return Ok(0);
        };
        // Running before the read: an actor starts only after its id is claimed, so one
        // started since then is not taken for lost.
        let running: Vec<(Uuid, u64)> = self
            .slots
            .iter()
            .map(|s| (*s.key(), s.generation))
            .collect();
        if running.is_empty() {
            return Ok(0);
        }
        let held = placement.ownership.held().await?;
        let mut retired = 0;
        for (id, generation) in running {
            if held.contains(&id) {
                continue;
            }
            if let Some((_, slot)) = self.slots.remove_if(&id, |_, s| s.generation == generation) {
                tracing::warn!(kind = %placement.kind, %id, "another node took this actor over; retiring it here");
                slot.addr.do_send(Retire);
                retired += 1;
            }
        }
        Ok(retired)
    }

    /// Where a command for `id` goes: the actor running here, else the owner's node, else
    /// (unowned) an actor started here after claiming the id.
    pub async fn route(self: &Arc<Self>, id: Uuid) -> Result<Route<A>, DbErr> {
        if let Some(slot) = self.slots.get(&id) {
            if slot.addr.connected() {
                return Ok(Route::Here(slot.addr.clone()));
            }
        }
        let Some(placement) = &self.placement else {
            return Ok(Route::Here(self.get_or_start(id)));
        };
        Ok(self.placed(id, placement.ownership.claim(id).await?))
    }

    fn placed(self: &Arc<Self>, id: Uuid, owner: Owner) -> Route<A> {
        match owner {
            Owner::Here => Route::Here(self.get_or_start(id)),
            Owner::Elsewhere(node) => Route::Elsewhere(node),
        }
    }

    /// Where `command` for `id` runs: here (the caller sends it to the actor), or relayed as
    /// plain data to the node that owns the id, whose answer this returns. An owner that
    /// left the cluster is taken over and the command runs here, unless the owner had
    /// heard it and `rerun` is unsafe; an owner that does not answer in time, or such a
    /// command, gives `There(None)`.
    pub async fn reach<C: serde::Serialize>(
        self: &Arc<Self>,
        id: Uuid,
        command: &C,
        rerun: Rerun,
    ) -> Result<Reached, DbErr> {
        self.place(id, command, Wait::ForAnswer(rerun)).await
    }

    /// As [`ActorRegistry::reach`], without waiting for the owner to handle the command
    /// (`There(None)` once it has it): what the command says must also be in the database.
    pub async fn hand_over<C: serde::Serialize>(
        self: &Arc<Self>,
        id: Uuid,
        command: &C,
    ) -> Result<Reached, DbErr> {
        self.place(id, command, Wait::No).await
    }

    async fn place<C: serde::Serialize>(
        self: &Arc<Self>,
        id: Uuid,
        command: &C,
        wait: Wait,
    ) -> Result<Reached, DbErr> {
        let mut route = self.route(id).await?;
        // A node taken over once cannot be gone again; a second owner gone is a newer one.
        for _ in 0..TRIES {
            let (Route::Elsewhere(node), Some(placement)) = (&route, &self.placement) else {
                return Ok(Reached::Here);
            };
            let Ok(command) = serde_json::to_value(command) else {
                return Ok(Reached::There(None));
            };
            let (relay, kind) = (&placement.relay, placement.kind);
            let sent = match wait {
                Wait::ForAnswer(_) => relay.ask(node, kind, id, command).await.map(Some),
                Wait::No => relay.tell(node, kind, id, command).await.map(|()| None),
            };
            match sent {
                Ok(answer) => return Ok(Reached::There(answer)),
                Err(Unanswered::Late) => return Ok(Reached::There(None)),
                Err(Unanswered::Lost) if wait != Wait::ForAnswer(Rerun::Safe) => {
                    // Taken over all the same, so the next command runs at once.
                    tracing::info!(%kind, %id, %node, "the owner left the cluster while running a command");
                    placement.ownership.take_over(id, node).await?;
                    return Ok(Reached::There(None));
                }
                Err(Unanswered::Gone | Unanswered::Lost) => {
                    tracing::info!(%kind, %id, %node, "the owner left the cluster; taking its actor over");
                    let owner = placement.ownership.take_over(id, node).await?;
                    route = self.placed(id, owner);
                }
            }
        }
        Ok(Reached::There(None))
    }

    /// Whether the id's actor runs here now.
    pub fn is_running(&self, id: Uuid) -> bool {
        self.slots.get(&id).is_some_and(|s| s.addr.connected())
    }

    /// Whether several nodes share the actors of this kind.
    pub fn is_owned(&self) -> bool {
        self.placement.is_some()
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

    impl Handler<Retire> for Probe {
        type Result = ();
        fn handle(&mut self, _: Retire, ctx: &mut Self::Context) {
            ctx.stop();
        }
    }

    /// Leases as a test sets them: `owner` answers claims (None: here); `held` is what this
    /// node holds.
    #[derive(Default)]
    struct Leases {
        owner: std::sync::Mutex<Option<String>>,
        held: std::sync::Mutex<std::collections::HashSet<Uuid>>,
        taken_from: std::sync::Mutex<Vec<String>>,
    }

    impl Ownership for Arc<Leases> {
        fn claim(&self, _: Uuid) -> BoxFuture<'_, Result<Owner, DbErr>> {
            let owner = self.owner.lock().unwrap().clone();
            Box::pin(async move { Ok(owner.map_or(Owner::Here, Owner::Elsewhere)) })
        }
        fn take_over<'a>(&'a self, _: Uuid, node: &'a str) -> BoxFuture<'a, Result<Owner, DbErr>> {
            self.taken_from.lock().unwrap().push(node.to_owned());
            *self.owner.lock().unwrap() = None;
            Box::pin(async { Ok(Owner::Here) })
        }
        fn release(&self, _: Uuid) {}
        fn held(&self) -> BoxFuture<'_, Result<std::collections::HashSet<Uuid>, DbErr>> {
            let held = self.held.lock().unwrap().clone();
            Box::pin(async move { Ok(held) })
        }
        fn check_every(&self) -> Duration {
            Duration::from_secs(3600) // the tests check themselves
        }
    }

    /// A relay whose every node left the cluster: before it heard a command (`Gone`), or
    /// after (`Lost`).
    struct NobodyThere(Unanswered);

    impl Relay for NobodyThere {
        fn ask(
            &self,
            _: &str,
            _: ActorKind,
            _: Uuid,
            _: serde_json::Value,
        ) -> BoxFuture<'_, Result<serde_json::Value, Unanswered>> {
            let why = self.0;
            Box::pin(async move { Err(why) })
        }
        fn tell(
            &self,
            _: &str,
            _: ActorKind,
            _: Uuid,
            _: serde_json::Value,
        ) -> BoxFuture<'_, Result<(), Unanswered>> {
            Box::pin(async { Err(Unanswered::Gone) })
        }
    }

    fn placed(leases: &Arc<Leases>, why: Unanswered) -> Arc<ActorRegistry<Probe>> {
        let starts = AtomicUsize::new(0);
        let placement = Placement {
            // Any kind: these leases and this relay are the test's own.
            kind: ActorKind::InterviewSession,
            ownership: Arc::new(leases.clone()),
            relay: Arc::new(NobodyThere(why)),
        };
        ActorRegistry::owned(
            Arbiter::current(),
            move |lease| Probe {
                lease,
                start: starts.fetch_add(1, Ordering::Relaxed) + 1,
            },
            Some(placement),
        )
    }

    #[actix::test]
    async fn an_actor_whose_id_another_node_took_is_retired() {
        let leases = Arc::new(Leases::default());
        let reg = placed(&leases, Unanswered::Gone);
        let (kept, lost) = (Uuid::new_v4(), Uuid::new_v4());
        assert_eq!(reg.send(kept, Which).await.unwrap(), 1);
        assert_eq!(reg.send(lost, Which).await.unwrap(), 2);
        leases.held.lock().unwrap().insert(kept);
        let retired = reg.get_or_start(lost);
        assert_eq!(reg.retire_lost().await.unwrap(), 1);
        actix::clock::sleep(Duration::from_millis(20)).await;
        assert!(!retired.connected(), "the lost one stopped");
        assert_eq!(reg.running(), 1);
        assert_eq!(
            reg.send(kept, Which).await.unwrap(),
            1,
            "the kept one runs on"
        );
    }

    #[actix::test]
    async fn an_owner_gone_from_the_cluster_is_taken_over() {
        let leases = Arc::new(Leases::default());
        *leases.owner.lock().unwrap() = Some("node-dead".into());
        let reg = placed(&leases, Unanswered::Gone);
        let id = Uuid::new_v4();
        assert!(matches!(
            reg.reach(id, &"hello", Rerun::Unsafe).await,
            Ok(Reached::Here)
        ));
        assert_eq!(*leases.taken_from.lock().unwrap(), ["node-dead"]);
        assert!(reg.is_running(id));
        // Handed over without waiting, the same.
        let other = Uuid::new_v4();
        *leases.owner.lock().unwrap() = Some("node-dead-too".into());
        assert!(matches!(
            reg.hand_over(other, &"hi").await,
            Ok(Reached::Here)
        ));
        assert_eq!(
            *leases.taken_from.lock().unwrap(),
            ["node-dead", "node-dead-too"]
        );
    }

    #[actix::test]
    async fn a_command_its_dead_owner_heard_runs_again_only_if_that_is_safe() {
        let leases = Arc::new(Leases::default());
        let reg = placed(&leases, Unanswered::Lost);
        let (unsafe_id, safe_id) = (Uuid::new_v4(), Uuid::new_v4());
        *leases.owner.lock().unwrap() = Some("node-a".into());
        let answer = reg.reach(unsafe_id, &"answer", Rerun::Unsafe).await;
        assert!(
            matches!(answer, Ok(Reached::There(None))),
            "no answer: try again"
        );
        assert_eq!(
            *leases.taken_from.lock().unwrap(),
            ["node-a"],
            "taken over all the same"
        );
        *leases.owner.lock().unwrap() = Some("node-b".into());
        let answer = reg.reach(safe_id, &"post", Rerun::Safe).await;
        assert!(matches!(answer, Ok(Reached::Here)), "runs here again");
        assert_eq!(*leases.taken_from.lock().unwrap(), ["node-a", "node-b"]);
    }
}
