//! One owner per actor across the nodes (`core_actor_leases`): a node claims an actor's id
//! before it starts the actor, renews every lease it holds in one statement a few times per
//! lease, and gives a lease back when its actor stops. A node that dies stops renewing, and
//! once its leases lapse any node may claim them: the next command, or the sweep of a service
//! that has actors with timers, starts the actor there from the database. A node seen to
//! have left the cluster bus (it was killed) has its leases taken over at once by the next
//! command for them ([`Leases::take_over`]); should it still be alive, it retires those
//! actors at its next check of what it holds.

use super::clock::Clock;
use super::cluster::Cluster;
use super::config::ClusterSettings;
use chrono::{DateTime, Utc};
use dashmap::DashMap;
use sea_orm::sea_query::{Condition, Expr};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, DatabaseConnection, DbErr, EntityTrait, QueryFilter,
    QuerySelect, TryInsertResult,
};
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;
use switchboard_actors::registry::{BoxFuture, Owner, Ownership};
use switchboard_entities::core::actor_lease::{ActiveModel, ActorKind, Column, Entity};
use tokio::sync::watch;
use uuid::Uuid;

/// Claims lost to a race (the row changed between two statements) are tried again this often.
const CLAIM_TRIES: usize = 3;

/// This node's leases.
#[derive(Clone)]
pub struct Leases {
    db: DatabaseConnection,
    clock: Arc<dyn Clock>,
    node: Arc<str>,
    ttl: Duration,
}

impl Leases {
    pub fn new(
        db: DatabaseConnection,
        clock: Arc<dyn Clock>,
        node: Arc<str>,
        ttl: Duration,
    ) -> Self {
        Self {
            db,
            clock,
            node,
            ttl,
        }
    }

    /// This node's leases on `db` when `cluster` shares actors with other nodes, renewed
    /// from now on; None on a single node. A node starting under the id of one that died
    /// runs none of its actors: their leases go back first, so others (or this node's own
    /// sweeps) take them up instead of waiting on a lease nobody serves.
    pub async fn of_cluster(
        cluster: &Cluster,
        settings: &ClusterSettings,
        db: &DatabaseConnection,
        clock: &Arc<dyn Clock>,
    ) -> Result<Option<Self>, DbErr> {
        if !cluster.bus.is_shared() {
            return Ok(None);
        }
        let ttl = Duration::from_secs(settings.lease_secs.max(1));
        let leases = Self::new(db.clone(), clock.clone(), cluster.node_id.clone(), ttl);
        leases.release_all().await?;
        leases.keep_renewing();
        Ok(Some(leases))
    }

    /// The same leases, read and written through `db`.
    pub fn on(&self, db: DatabaseConnection) -> Self {
        Self { db, ..self.clone() }
    }

    fn until(&self, now: DateTime<Utc>) -> DateTime<Utc> {
        now + chrono::Duration::from_std(self.ttl).unwrap_or(chrono::Duration::seconds(10))
    }

    /// Takes `kind`/`id` for this node unless another node's lease is live; answers the owner.
    pub async fn claim(&self, kind: ActorKind, id: Uuid) -> Result<Owner, DbErr> {
        for _ in 0..CLAIM_TRIES {
            let now = self.clock.now();
            // Ours already, or lapsed: take (or keep) it.
            let taken = Entity::update_many()
                .col_expr(Column::Owner, Expr::value(&*self.node))
                .col_expr(Column::ExpiresAt, Expr::value(self.until(now)))
                .filter(Column::Kind.eq(kind))
                .filter(Column::ActorId.eq(id))
                .filter(
                    Condition::any()
                        .add(Column::Owner.eq(&*self.node))
                        .add(Column::ExpiresAt.lt(now)),
                )
                .exec(&self.db)
                .await?;
            if taken.rows_affected == 1 {
                return Ok(Owner::Here);
            }
            let row = ActiveModel {
                kind: Set(kind),
                actor_id: Set(id),
                owner: Set(self.node.to_string()),
                expires_at: Set(self.until(now)),
            };
            let inserted = Entity::insert(row)
                .on_conflict_do_nothing_on([Column::Kind, Column::ActorId])
                .exec_without_returning(&self.db)
                .await?;
            if matches!(inserted, TryInsertResult::Inserted(n) if n > 0) {
                return Ok(Owner::Here);
            }
            match Entity::find_by_id((kind, id)).one(&self.db).await? {
                Some(lease) if lease.owner != *self.node && lease.expires_at >= now => {
                    return Ok(Owner::Elsewhere(lease.owner))
                }
                // Released or lapsed in between: claim again.
                _ => continue,
            }
        }
        Err(DbErr::Custom(format!(
            "the lease of {kind} {id} kept changing hands"
        )))
    }

    /// Takes `kind`/`id` from `node`, which left the cluster; an ordinary claim when `node`
    /// no longer holds it.
    pub async fn take_over(&self, kind: ActorKind, id: Uuid, node: &str) -> Result<Owner, DbErr> {
        let taken = Entity::update_many()
            .col_expr(Column::Owner, Expr::value(&*self.node))
            .col_expr(Column::ExpiresAt, Expr::value(self.until(self.clock.now())))
            .filter(Column::Kind.eq(kind))
            .filter(Column::ActorId.eq(id))
            .filter(Column::Owner.eq(node))
            .exec(&self.db)
            .await?;
        if taken.rows_affected == 1 {
            return Ok(Owner::Here);
        }
        self.claim(kind, id).await
    }

    /// The ids of `kind` this node holds.
    pub async fn held(&self, kind: ActorKind) -> Result<HashSet<Uuid>, DbErr> {
        let ids: Vec<Uuid> = Entity::find()
            .select_only()
            .column(Column::ActorId)
            .filter(Column::Kind.eq(kind))
            .filter(Column::Owner.eq(&*self.node))
            .into_tuple()
            .all(&self.db)
            .await?;
        Ok(ids.into_iter().collect())
    }

    /// Gives `kind`/`id` back, if this node holds it.
    pub async fn release(&self, kind: ActorKind, id: Uuid) -> Result<(), DbErr> {
        Entity::delete_many()
            .filter(Column::Kind.eq(kind))
            .filter(Column::ActorId.eq(id))
            .filter(Column::Owner.eq(&*self.node))
            .exec(&self.db)
            .await
            .map(drop)
    }

    /// Extends every lease this node holds; how many.
    pub async fn renew(&self) -> Result<u64, DbErr> {
        let now = self.clock.now();
        Entity::update_many()
            .col_expr(Column::ExpiresAt, Expr::value(self.until(now)))
            .filter(Column::Owner.eq(&*self.node))
            .exec(&self.db)
            .await
            .map(|r| r.rows_affected)
    }

    /// Gives back every lease of this node (it is shutting down): others take over at once.
    pub async fn release_all(&self) -> Result<(), DbErr> {
        Entity::delete_many()
            .filter(Column::Owner.eq(&*self.node))
            .exec(&self.db)
            .await
            .map(drop)
    }

    /// Three times per lease: a renewal (or a check) may fail twice before a lease lapses.
    fn renew_every(&self) -> Duration {
        (self.ttl / 3).max(Duration::from_millis(100))
    }

    /// Renews this node's leases three times per lease until the process ends. Must be
    /// called inside a Tokio runtime.
    pub fn keep_renewing(&self) {
        let leases = self.clone();
        tokio::spawn(async move {
            let every = leases.renew_every();
            let mut ticks = tokio::time::interval(every);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                if let Err(e) = leases.renew().await {
                    tracing::warn!(error = %e, "renewing this node's actor leases failed");
                }
            }
        });
    }

    /// The [`Ownership`] of the actors of `kind`.
    pub fn of(&self, kind: ActorKind) -> Arc<dyn Ownership> {
        Arc::new(KindLeases {
            leases: self.clone(),
            kind,
            releasing: Arc::default(),
        })
    }
}

/// Done once the release it stands for has run.
type Released = watch::Receiver<bool>;

struct KindLeases {
    leases: Leases,
    kind: ActorKind,
    /// Releases still running, by id: a claim of the same id waits for them, or a release
    /// of an actor that stopped would delete the lease of the actor started after it.
    releasing: Arc<DashMap<Uuid, Released>>,
}

async fn released(earlier: Option<Released>) {
    if let Some(mut done) = earlier {
        let _ = done.wait_for(|done| *done).await;
    }
}

impl Ownership for KindLeases {
    fn claim(&self, id: Uuid) -> BoxFuture<'_, Result<Owner, DbErr>> {
        let earlier = self.releasing.get(&id).map(|r| r.clone());
        Box::pin(async move {
            released(earlier).await;
            self.leases.claim(self.kind, id).await
        })
    }

    fn take_over<'a>(&'a self, id: Uuid, node: &'a str) -> BoxFuture<'a, Result<Owner, DbErr>> {
        let earlier = self.releasing.get(&id).map(|r| r.clone());
        Box::pin(async move {
            released(earlier).await;
            self.leases.take_over(self.kind, id, node).await
        })
    }

    fn held(&self) -> BoxFuture<'_, Result<HashSet<Uuid>, DbErr>> {
        Box::pin(self.leases.held(self.kind))
    }

    fn check_every(&self) -> Duration {
        self.leases.renew_every()
    }

    fn release(&self, id: Uuid) {
        // An actor dropped while the process shuts down finds no runtime to spawn on (that
        // panicked); its lease was given back with the node's, or lapses by itself.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (leases, kind) = (self.leases.clone(), self.kind);
        let (done, waiter) = watch::channel(false);
        let earlier = self.releasing.insert(id, waiter.clone());
        let releasing = self.releasing.clone();
        runtime.spawn(async move {
            released(earlier).await;
            if let Err(e) = leases.release(kind, id).await {
                // It lapses by itself; until then the next command comes here.
                tracing::warn!(%kind, %id, error = %e, "giving an actor lease back failed");
            }
            releasing.remove_if(&id, |_, r| r.same_channel(&waiter));
            let _ = done.send(true);
        });
    }
}
