//! `WebhookEndpoint`: one actor per customer webhook. It owns the endpoint's pending
//! deliveries, their retry timers and the endpoint's consecutive-failure count. Order is kept
//! per ordering key (a message's events in the order they happened, see `order_key` on the
//! delivery row); deliveries with different keys retry independently, so one refused event
//! holds back only the later events of its own message. One delivery is in flight per endpoint
//! at a time. Every delivery is a database row before the actor hears of it, and every outcome
//! is written before the next delivery starts, so a restart resumes exactly where the process
//! stopped. The actor sleeps until its next delivery is due (a timer on the injected clock,
//! re-armed whenever its pending set changes) and stops by a timer when it has been idle.

use crate::registry::{ActorRegistry, Lease, Placement, Reached, Retire, Route};
use actix::prelude::*;
use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DatabaseConnection, DbErr, EntityTrait,
    QueryFilter, QueryOrder, QuerySelect, Set,
};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant;
use switchboard_entities::core::actor_lease::ActorKind;
use switchboard_entities::messaging::webhook_delivery::DeliveryStatus;
use switchboard_entities::messaging::{delivery_attempt, webhook, webhook_delivery};
use uuid::Uuid;

/// Time as the server sees it (tests move it by hand).
pub trait WebhookClock: Send + Sync + 'static {
    fn now(&self) -> DateTime<Utc>;

    /// Resolves once `now()` has reached `at` (a clock that tests move wakes its sleepers
    /// when moved).
    fn sleep_until(&self, at: DateTime<Utc>) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        let wait = (at - self.now()).to_std().unwrap_or_default();
        Box::pin(tokio::time::sleep(wait))
    }
}

/// What the transport needs to sign and post one delivery.
#[derive(Debug, Clone)]
pub struct OutgoingDelivery {
    pub url: String,
    /// The stored SHA-256 hex digest of the webhook secret: the HMAC key.
    pub signing_key: String,
    pub event_type: String,
    pub delivery_id: Uuid,
    pub body: String,
    pub timeout: std::time::Duration,
}

#[derive(Debug, Clone)]
pub struct TransportResponse {
    pub status: u16,
    pub body: String,
    /// The receiver's Retry-After, when it sent one.
    pub retry_after: Option<Duration>,
}

pub type TransportFuture = Pin<Box<dyn Future<Output = Result<TransportResponse, String>> + Send>>;

/// Posts a delivery (the server signs it and applies the timeout and address policy).
pub trait WebhookTransport: Send + Sync + 'static {
    fn deliver(&self, delivery: OutgoingDelivery, now: DateTime<Utc>) -> TransportFuture;
}

/// Retry schedule and limits of the delivery rules.
#[derive(Debug, Clone)]
pub struct RetryPolicy {
    pub timeout: std::time::Duration,
    /// Consecutive failed attempts that deactivate the webhook.
    pub deactivate_after: i32,
    /// Attempts of one delivery before it is given up.
    pub max_attempts: i32,
    pub base_delay_secs: i64,
    pub factor: i64,
    pub max_delay_secs: i64,
    /// Fraction (0..1) by which a delay is randomly shortened or lengthened.
    pub jitter: f64,
    /// Longest Retry-After honoured.
    pub max_retry_after_secs: i64,
    /// An actor with nothing queued stops after this long; it is revived on demand.
    pub idle_stop: std::time::Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            timeout: std::time::Duration::from_secs(30),
            deactivate_after: 10,
            max_attempts: 10,
            base_delay_secs: 30,
            factor: 4,
            max_delay_secs: 6 * 3600,
            jitter: 0.1,
            max_retry_after_secs: 24 * 3600,
            idle_stop: std::time::Duration::from_secs(300),
        }
    }
}

/// Delay before the next attempt after `failed_attempts` failures: base × factorⁿ⁻¹ capped,
/// scaled by `1 + jitter × sample` (sample in −1..=1), never shorter than Retry-After.
pub fn backoff(
    policy: &RetryPolicy,
    failed_attempts: i32,
    retry_after: Option<Duration>,
    sample: f64,
) -> Duration {
    let secs = |s: i64| std::time::Duration::from_secs(Ord::max(s, 0).unsigned_abs());
    let raw = crate::backoff::exponential(
        secs(policy.base_delay_secs),
        u32::try_from(Ord::max(policy.factor, 1)).unwrap_or(u32::MAX),
        secs(policy.max_delay_secs),
        failed_attempts,
    )
    .as_secs() as i64;
    let scaled = (raw as f64 * (1.0 + policy.jitter * sample.clamp(-1.0, 1.0))).round() as i64;
    let delay = Duration::seconds(Ord::max(scaled, 1));
    match retry_after {
        Some(ra) => {
            let ra = Ord::min(ra, Duration::seconds(policy.max_retry_after_secs));
            Ord::max(delay, ra)
        }
        None => delay,
    }
}

pub struct EndpointDeps {
    pub db: DatabaseConnection,
    pub transport: Arc<dyn WebhookTransport>,
    pub clock: Arc<dyn WebhookClock>,
    pub policy: RetryPolicy,
    /// This node's id, written on the attempts it claims.
    pub owner: String,
    /// When this process began delivering: a claim of this node from before then belongs to
    /// a process that died mid-attempt, and is taken back at once.
    pub started_at: DateTime<Utc>,
}

impl EndpointDeps {
    /// Whether `d`'s attempt lease was taken by an earlier run of this node.
    fn left_by_earlier_run(&self, owner: Option<&str>, started: Option<DateTime<Utc>>) -> bool {
        owner == Some(self.owner.as_str()) && started.is_some_and(|at| at < self.started_at)
    }
}

/// A delivery row for this webhook was written; the actor delivers it after the earlier
/// pending deliveries with the same order key. Plain data: on several nodes it crosses the
/// bus to the node that runs the endpoint.
#[derive(Message, Debug, Clone, serde::Serialize, serde::Deserialize)]
#[rtype(result = "()")]
pub struct Enqueue {
    pub delivery_id: Uuid,
    /// The row's `seq`: order among deliveries with the same key.
    pub seq: i64,
    pub order_key: String,
    /// The row's `next_attempt_at`.
    pub not_before: DateTime<Utc>,
}

/// The endpoint's pending deliveries and pause as the database holds them.
#[derive(Message)]
#[rtype(result = "()")]
struct Loaded {
    pending: Vec<Enqueue>,
    endpoint_not_before: Option<DateTime<Utc>>,
}

#[derive(Message)]
#[rtype(result = "()")]
pub struct Shutdown;

enum Outcome {
    /// Finished for good (succeeded, failed, skipped or no longer pending).
    Done,
    /// Not due before this time.
    NotBefore(DateTime<Utc>),
    /// An earlier pending delivery with the same key exists that the actor did not know of:
    /// reload the pending set from the database.
    Blocked,
    /// The database failed; try again a second later.
    Error,
}

/// What an attempt means for the whole endpoint.
enum Pause {
    Keep,
    Clear,
    /// Two or more consecutive attempts failed: the receiver looks down, so nothing is sent
    /// before this time (the delay a single delivery would wait after as many failures).
    Until(DateTime<Utc>),
}

struct Waiting {
    key: String,
    not_before: DateTime<Utc>,
}

pub struct WebhookEndpoint {
    id: Uuid,
    lease: Lease<Self>,
    deps: Arc<EndpointDeps>,
    /// Pending deliveries by (seq, id).
    pending: BTreeMap<(i64, Uuid), Waiting>,
    seq_of: HashMap<Uuid, i64>,
    loaded: bool,
    busy: bool,
    paused_until: Option<DateTime<Utc>>,
    /// The timer that pumps again when the next delivery falls due.
    due_timer: Option<SpawnHandle>,
    /// The timer that stops the actor once it has had nothing to do for `idle_stop`.
    idle_timer: Option<SpawnHandle>,
}

impl WebhookEndpoint {
    pub fn new(lease: Lease<Self>, deps: Arc<EndpointDeps>) -> Self {
        Self {
            id: lease.id(),
            lease,
            deps,
            pending: BTreeMap::new(),
            seq_of: HashMap::new(),
            loaded: false,
            busy: false,
            paused_until: None,
            due_timer: None,
            idle_timer: None,
        }
    }

    fn insert(&mut self, d: Enqueue) {
        if let Some(old) = self.seq_of.insert(d.delivery_id, d.seq) {
            self.pending.remove(&(old, d.delivery_id));
        }
        self.pending.insert(
            (d.seq, d.delivery_id),
            Waiting {
                key: d.order_key,
                not_before: d.not_before,
            },
        );
    }

    fn remove(&mut self, id: Uuid) {
        if let Some(seq) = self.seq_of.remove(&id) {
            self.pending.remove(&(seq, id));
        }
    }

    /// The earliest due delivery that is first of its key, or else when one may become due.
    fn next_due(&self, now: DateTime<Utc>) -> Result<(i64, Uuid), Option<DateTime<Utc>>> {
        let mut keys_seen: HashSet<&str> = HashSet::new();
        let mut earliest: Option<DateTime<Utc>> = None;
        for (&(seq, id), w) in &self.pending {
            if !keys_seen.insert(w.key.as_str()) {
                continue;
            }
            if w.not_before <= now {
                return Ok((seq, id));
            }
            earliest = Some(earliest.map_or(w.not_before, |e| Ord::min(e, w.not_before)));
        }
        Err(earliest)
    }

    fn load(&mut self, ctx: &mut Context<Self>, after: std::time::Duration) {
        self.loaded = false;
        let deps = self.deps.clone();
        let id = self.id;
        ctx.run_later(after, move |act, ctx| {
            ctx.spawn(
                async move { load(&deps, id).await }
                    .into_actor(act)
                    .map(|res, act, ctx| match res {
                        Ok(loaded) => ctx.notify(loaded),
                        Err(e) => {
                            tracing::error!(error = %e, "loading pending webhook deliveries failed");
                            act.load(ctx, std::time::Duration::from_secs(1));
                        }
                    }),
            );
        });
    }

    /// Starts the next deliverable delivery when nothing is in flight; otherwise arms the
    /// timer for when one falls due, or the idle timer when nothing is pending.
    fn pump(&mut self, ctx: &mut Context<Self>) {
        if !self.loaded || self.busy {
            return;
        }
        if let Some(t) = self.due_timer.take() {
            ctx.cancel_future(t);
        }
        let now = self.deps.clock.now();
        if let Some(until) = self.paused_until.filter(|t| now < *t) {
            self.wake_at(ctx, until);
            return;
        }
        let (seq, delivery_id) = match self.next_due(now) {
            Ok(next) => next,
            Err(Some(earliest)) => {
                self.wake_at(ctx, earliest);
                return;
            }
            Err(None) => {
                self.idle(ctx);
                return;
            }
        };
        self.busy = true;
        let fut = attempt(self.deps.clone(), self.id, delivery_id);
        ctx.spawn(fut.into_actor(self).map(move |(outcome, pause), act, ctx| {
            act.busy = false;
            match pause {
                Pause::Keep => {}
                Pause::Clear => act.paused_until = None,
                Pause::Until(t) => act.paused_until = Some(t),
            }
            match outcome {
                Outcome::Done => act.remove(delivery_id),
                Outcome::NotBefore(t) => {
                    if let Some(w) = act.pending.get_mut(&(seq, delivery_id)) {
                        w.not_before = t;
                    }
                }
                Outcome::Error => {
                    if let Some(w) = act.pending.get_mut(&(seq, delivery_id)) {
                        w.not_before = act.deps.clock.now() + Duration::seconds(1);
                    }
                }
                Outcome::Blocked => {
                    act.load(ctx, std::time::Duration::ZERO);
                    return;
                }
            }
            act.pump(ctx);
        }));
    }

    /// Pumps again at `at` on the injected clock.
    fn wake_at(&mut self, ctx: &mut Context<Self>, at: DateTime<Utc>) {
        let sleep = self.deps.clock.sleep_until(at);
        self.due_timer = Some(ctx.spawn(sleep.into_actor(self).map(|(), act, ctx| {
            act.due_timer = None;
            act.pump(ctx);
        })));
    }

    /// Nothing pending: stop after `idle_stop` unless work arrives first (which cancels it).
    fn idle(&mut self, ctx: &mut Context<Self>) {
        if self.idle_timer.is_some() {
            return;
        }
        self.idle_timer = Some(ctx.run_later(self.deps.policy.idle_stop, |act, ctx| {
            act.idle_timer = None;
            if act.pending.is_empty() && !act.busy {
                ctx.stop();
            }
        }));
    }

    /// Work arrived: no idle stop; the countdown starts again when the actor is next idle.
    fn cancel_idle(&mut self, ctx: &mut Context<Self>) {
        if let Some(t) = self.idle_timer.take() {
            ctx.cancel_future(t);
        }
    }
}

impl Actor for WebhookEndpoint {
    type Context = Context<Self>;

    fn stopped(&mut self, _: &mut Self::Context) {
        self.lease.release();
    }

    fn started(&mut self, ctx: &mut Self::Context) {
        // Deliveries written before this actor existed (or before a restart) are in the rows.
        self.load(ctx, std::time::Duration::ZERO);
    }
}

/// Another node took this endpoint over (see `ActorRegistry::owned`).
impl Handler<Retire> for WebhookEndpoint {
    type Result = ();
    fn handle(&mut self, _: Retire, ctx: &mut Self::Context) {
        ctx.stop();
    }
}

impl Handler<Loaded> for WebhookEndpoint {
    type Result = ();
    fn handle(&mut self, msg: Loaded, ctx: &mut Self::Context) {
        self.cancel_idle(ctx);
        // Rows are the truth; deliveries enqueued while loading stay (a finished one is
        // recognised as such when its turn comes).
        for d in msg.pending {
            self.insert(d);
        }
        self.paused_until = match (self.paused_until, msg.endpoint_not_before) {
            (Some(a), Some(b)) => Some(Ord::max(a, b)),
            (_, b) => b,
        };
        self.loaded = true;
        self.pump(ctx);
    }
}

impl Handler<Enqueue> for WebhookEndpoint {
    type Result = ();
    fn handle(&mut self, msg: Enqueue, ctx: &mut Self::Context) {
        self.cancel_idle(ctx);
        self.insert(msg);
        self.pump(ctx);
    }
}

impl Handler<Shutdown> for WebhookEndpoint {
    type Result = ();
    fn handle(&mut self, _: Shutdown, ctx: &mut Self::Context) {
        ctx.stop();
    }
}

/// The endpoint's pending deliveries in `seq` order, and the pause its failure count implies
/// (counted from its latest attempt, without jitter or Retry-After, which are not stored).
async fn load(deps: &EndpointDeps, webhook_id: Uuid) -> Result<Loaded, DbErr> {
    let now = deps.clock.now();
    type Row = (
        Uuid,
        i64,
        String,
        DateTime<Utc>,
        Option<String>,
        Option<DateTime<Utc>>,
    );
    let rows: Vec<Row> = webhook_delivery::Entity::find()
        .select_only()
        .column(webhook_delivery::Column::Id)
        .column(webhook_delivery::Column::Seq)
        .column(webhook_delivery::Column::OrderKey)
        .column(webhook_delivery::Column::NextAttemptAt)
        .column(webhook_delivery::Column::AttemptOwner)
        .column(webhook_delivery::Column::AttemptStartedAt)
        .filter(webhook_delivery::Column::WebhookId.eq(webhook_id))
        .filter(webhook_delivery::Column::Status.eq(DeliveryStatus::Pending))
        .order_by_asc(webhook_delivery::Column::Seq)
        .into_tuple()
        .all(&deps.db)
        .await?;
    let failures = webhook::Entity::find_by_id(webhook_id)
        .select_only()
        .column(webhook::Column::FailureCount)
        .into_tuple::<i32>()
        .one(&deps.db)
        .await?
        .unwrap_or(0);
    let mut endpoint_not_before = None;
    if failures >= 2 {
        let last = delivery_attempt::Entity::find()
            .select_only()
            .column(delivery_attempt::Column::DeliveredAt)
            .filter(delivery_attempt::Column::WebhookId.eq(webhook_id))
            .order_by_desc(delivery_attempt::Column::DeliveredAt)
            .into_tuple::<DateTime<Utc>>()
            .one(&deps.db)
            .await?;
        endpoint_not_before = last.map(|t| t + backoff(&deps.policy, failures, None, 0.0));
    }
    Ok(Loaded {
        pending: rows
            .into_iter()
            .map(
                |(delivery_id, seq, order_key, mut not_before, owner, started)| {
                    if deps.left_by_earlier_run(owner.as_deref(), started) {
                        not_before = now;
                    }
                    Enqueue {
                        delivery_id,
                        seq,
                        order_key,
                        not_before,
                    }
                },
            )
            .collect(),
        endpoint_not_before,
    })
}

fn truncate(s: &str, max_chars: usize) -> String {
    match s.char_indices().nth(max_chars) {
        Some((i, _)) => s[..i].to_owned(),
        None => s.to_owned(),
    }
}

async fn attempt(deps: Arc<EndpointDeps>, webhook_id: Uuid, delivery_id: Uuid) -> (Outcome, Pause) {
    match try_attempt(&deps, webhook_id, delivery_id).await {
        Ok(o) => o,
        Err(e) => {
            tracing::error!(error = %e, %delivery_id, "webhook delivery bookkeeping failed");
            (Outcome::Error, Pause::Keep)
        }
    }
}

async fn finish<C: ConnectionTrait>(
    db: &C,
    delivery_id: Uuid,
    status: DeliveryStatus,
    attempts: Option<i32>,
    now: DateTime<Utc>,
) -> Result<(), DbErr> {
    let mut q = webhook_delivery::Entity::update_many()
        .col_expr(webhook_delivery::Column::Status, Expr::value(status))
        .col_expr(webhook_delivery::Column::CompletedAt, Expr::value(now));
    if let Some(n) = attempts {
        q = q.col_expr(webhook_delivery::Column::Attempts, Expr::value(n));
    }
    q.filter(webhook_delivery::Column::Id.eq(delivery_id))
        .filter(webhook_delivery::Column::Status.eq(DeliveryStatus::Pending))
        .exec(db)
        .await?;
    Ok(())
}

async fn try_attempt(
    deps: &EndpointDeps,
    webhook_id: Uuid,
    delivery_id: Uuid,
) -> Result<(Outcome, Pause), DbErr> {
    let db = &deps.db;
    let now = deps.clock.now();
    let Some(delivery) = webhook_delivery::Entity::find_by_id(delivery_id)
        .one(db)
        .await?
    else {
        return Ok((Outcome::Done, Pause::Keep));
    };
    if delivery.status != DeliveryStatus::Pending {
        return Ok((Outcome::Done, Pause::Keep));
    }
    let abandoned = deps.left_by_earlier_run(
        delivery.attempt_owner.as_deref(),
        delivery.attempt_started_at,
    );
    if delivery.next_attempt_at > now && !abandoned {
        return Ok((Outcome::NotBefore(delivery.next_attempt_at), Pause::Keep));
    }
    let hook = webhook::Entity::find_by_id(webhook_id).one(db).await?;
    let Some(hook) = hook.filter(|h| h.is_active) else {
        finish(db, delivery_id, DeliveryStatus::Skipped, None, now).await?;
        return Ok((Outcome::Done, Pause::Keep));
    };
    // The rows decide the order, whatever this actor was told.
    let earlier = webhook_delivery::Entity::find()
        .select_only()
        .column(webhook_delivery::Column::Id)
        .filter(webhook_delivery::Column::WebhookId.eq(webhook_id))
        .filter(webhook_delivery::Column::OrderKey.eq(delivery.order_key.as_str()))
        .filter(webhook_delivery::Column::Seq.lt(delivery.seq))
        .filter(webhook_delivery::Column::Status.eq(DeliveryStatus::Pending))
        .into_tuple::<Uuid>()
        .one(db)
        .await?;
    if earlier.is_some() {
        return Ok((Outcome::Blocked, Pause::Keep));
    }
    // Claim the attempt: whoever moves next_attempt_at on from the value read posts it, so a
    // second actor for this webhook (another node's) finds nothing to do. The lease also
    // times out an attempt whose process died: it is retried once the lease has passed.
    let lease_until = now
        + Duration::from_std(deps.policy.timeout).unwrap_or_else(|_| Duration::seconds(30))
        + Duration::seconds(30);
    let claimed = webhook_delivery::Entity::update_many()
        .col_expr(
            webhook_delivery::Column::NextAttemptAt,
            Expr::value(lease_until),
        )
        .col_expr(
            webhook_delivery::Column::AttemptOwner,
            Expr::value(deps.owner.clone()),
        )
        .col_expr(webhook_delivery::Column::AttemptStartedAt, Expr::value(now))
        .filter(webhook_delivery::Column::Id.eq(delivery_id))
        .filter(webhook_delivery::Column::Status.eq(DeliveryStatus::Pending))
        .filter(webhook_delivery::Column::NextAttemptAt.eq(delivery.next_attempt_at))
        .exec(db)
        .await?;
    if claimed.rows_affected != 1 {
        return Ok((Outcome::NotBefore(lease_until), Pause::Keep));
    }

    let attempt_no = delivery.attempts + 1;
    let started = Instant::now();
    let result = deps
        .transport
        .deliver(
            OutgoingDelivery {
                url: hook.url.clone(),
                signing_key: hook.secret_hash.clone(),
                event_type: delivery.event_type.clone(),
                delivery_id,
                body: delivery.payload.clone(),
                timeout: deps.policy.timeout,
            },
            now,
        )
        .await;
    let elapsed_ms = started.elapsed().as_millis() as i64;
    let now = deps.clock.now();
    let (status, body, error, retry_after) = match &result {
        Ok(r) => (
            Some(i32::from(r.status)),
            Some(truncate(&r.body, 1000)),
            (!(200..300).contains(&r.status)).then(|| format!("HTTP {}", r.status)),
            r.retry_after,
        ),
        Err(e) => (None, None, Some(truncate(e, 1000)), None),
    };
    let success = error.is_none();

    let txn = switchboard_entities::txn::begin_write(db).await?;
    delivery_attempt::ActiveModel {
        id: Set(Uuid::new_v4()),
        delivery_id: Set(delivery_id),
        webhook_id: Set(webhook_id),
        event_type: Set(delivery.event_type.clone()),
        attempt: Set(attempt_no),
        response_status: Set(status),
        response_body: Set(body),
        error: Set(error.clone()),
        duration_ms: Set(elapsed_ms),
        delivered_at: Set(now),
    }
    .insert(&txn)
    .await?;

    if success {
        webhook::Entity::update_many()
            .col_expr(webhook::Column::FailureCount, Expr::value(0))
            .col_expr(webhook::Column::LastTriggeredAt, Expr::value(now))
            .filter(webhook::Column::Id.eq(webhook_id))
            .exec(&txn)
            .await?;
        finish(
            &txn,
            delivery_id,
            DeliveryStatus::Succeeded,
            Some(attempt_no),
            now,
        )
        .await?;
        txn.commit().await?;
        return Ok((Outcome::Done, Pause::Clear));
    }

    webhook::Entity::update_many()
        .col_expr(
            webhook::Column::FailureCount,
            Expr::col(webhook::Column::FailureCount).add(1),
        )
        .col_expr(webhook::Column::UpdatedAt, Expr::value(now))
        .filter(webhook::Column::Id.eq(webhook_id))
        .exec(&txn)
        .await?;
    let failures = webhook::Entity::find_by_id(webhook_id)
        .select_only()
        .column(webhook::Column::FailureCount)
        .into_tuple::<i32>()
        .one(&txn)
        .await?
        .unwrap_or(0);
    let mut deactivated = false;
    if failures >= deps.policy.deactivate_after {
        let res = webhook::Entity::update_many()
            .col_expr(webhook::Column::IsActive, Expr::value(false))
            .filter(webhook::Column::Id.eq(webhook_id))
            .filter(webhook::Column::IsActive.eq(true))
            .exec(&txn)
            .await?;
        deactivated = true;
        if res.rows_affected == 1 {
            tracing::warn!(
                %webhook_id,
                failures,
                "webhook deactivated after consecutive failed deliveries"
            );
        }
    }
    let pause = if deactivated {
        Pause::Keep
    } else if failures >= 2 {
        let sample = rand::random::<f64>() * 2.0 - 1.0;
        Pause::Until(now + backoff(&deps.policy, failures, retry_after, sample))
    } else {
        Pause::Clear
    };
    let outcome = if deactivated || attempt_no >= deps.policy.max_attempts {
        finish(
            &txn,
            delivery_id,
            DeliveryStatus::Failed,
            Some(attempt_no),
            now,
        )
        .await?;
        Outcome::Done
    } else {
        let sample = rand::random::<f64>() * 2.0 - 1.0;
        let at = now + backoff(&deps.policy, attempt_no, retry_after, sample);
        webhook_delivery::Entity::update_many()
            .col_expr(webhook_delivery::Column::Attempts, Expr::value(attempt_no))
            .col_expr(webhook_delivery::Column::NextAttemptAt, Expr::value(at))
            // Between attempts nobody holds it: a restart waits out the backoff.
            .col_expr(
                webhook_delivery::Column::AttemptOwner,
                Expr::value(Option::<String>::None),
            )
            .col_expr(
                webhook_delivery::Column::AttemptStartedAt,
                Expr::value(Option::<DateTime<Utc>>::None),
            )
            .filter(webhook_delivery::Column::Id.eq(delivery_id))
            .exec(&txn)
            .await?;
        Outcome::NotBefore(at)
    };
    txn.commit().await?;
    Ok((outcome, pause))
}

/// The kind of actor leased per webhook endpoint (`core_actor_leases.kind`).
pub const ENDPOINT_KIND: ActorKind = ActorKind::WebhookEndpoint;

/// Finds or starts the actor of a webhook. Actors stop when idle and are revived from the
/// database on the next delivery; the service's recurring job `messaging.webhooks.resume`
/// calls [`WebhookRegistry::resume_pending`] to revive any endpoint with pending work. On
/// several nodes each endpoint runs on the node holding its lease, so its deliveries leave
/// one at a time and in order from one place.
pub struct WebhookRegistry {
    deps: Arc<EndpointDeps>,
    actors: Arc<ActorRegistry<WebhookEndpoint>>,
}

impl WebhookRegistry {
    /// Must be called inside an actix System: the actors run on the current arbiter.
    pub fn new(deps: EndpointDeps, placement: Option<Placement>) -> Arc<Self> {
        let deps = Arc::new(deps);
        let shared = deps.clone();
        Arc::new(Self {
            actors: ActorRegistry::owned(
                Arbiter::current(),
                move |lease| WebhookEndpoint::new(lease, shared.clone()),
                placement,
            ),
            deps,
        })
    }

    pub fn policy(&self) -> &RetryPolicy {
        &self.deps.policy
    }

    /// Hands a delivery (already a row) to its endpoint's actor, here or on its owner (a
    /// delivery that does not arrive there is in its row, read when that actor next loads).
    pub fn enqueue(self: &Arc<Self>, webhook_id: Uuid, delivery: Enqueue) {
        if !self.actors.is_owned() {
            self.actors.do_send(webhook_id, delivery);
            return;
        }
        let registry = self.clone();
        // Not `actix::spawn`: jobs enqueue from Tokio tasks outside any actix arbiter.
        tokio::spawn(async move {
            match registry.actors.hand_over(webhook_id, &delivery).await {
                Ok(Reached::Here) => registry.actors.do_send(webhook_id, delivery),
                // Handed over, or waiting in its row for the owner or the recurring resume.
                Ok(Reached::There(_)) => {}
                Err(e) => {
                    tracing::warn!(%webhook_id, error = %e, "claiming a webhook endpoint failed")
                }
            }
        });
    }

    /// A delivery another node handed over: to the actor here if this node runs the
    /// endpoint (or can claim it); otherwise the owner reads it from its row.
    pub async fn enqueue_forwarded(&self, webhook_id: Uuid, delivery: serde_json::Value) {
        let Ok(delivery) = serde_json::from_value::<Enqueue>(delivery) else {
            return;
        };
        if let Ok(Route::Here(_)) = self.actors.route(webhook_id).await {
            self.actors.do_send(webhook_id, delivery);
        }
    }

    /// Makes sure an actor runs for every webhook with pending deliveries (start-up and the
    /// recurring resume): here, unless another live node runs it; returns how many webhooks
    /// have some.
    pub async fn resume_pending(&self) -> Result<usize, DbErr> {
        let ids: Vec<Uuid> = webhook_delivery::Entity::find()
            .select_only()
            .column(webhook_delivery::Column::WebhookId)
            .distinct()
            .filter(webhook_delivery::Column::Status.eq(DeliveryStatus::Pending))
            .into_tuple::<Uuid>()
            .all(&self.deps.db)
            .await?;
        for id in &ids {
            self.actors.route(*id).await?;
        }
        Ok(ids.len())
    }

    /// Number of endpoint actors currently running.
    pub fn running(&self) -> usize {
        self.actors.running()
    }

    pub fn stop_all(&self) {
        for a in self.actors.drain() {
            a.do_send(Shutdown);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_spans_more_than_a_day_even_with_negative_jitter() {
        let p = RetryPolicy::default();
        let total: i64 = (1..p.max_attempts)
            .map(|n| backoff(&p, n, None, -1.0).num_seconds())
            .sum();
        assert!(total >= 24 * 3600, "{total}");
        assert_eq!(backoff(&p, 1, None, 0.0), Duration::seconds(30));
        assert_eq!(backoff(&p, 2, None, 0.0), Duration::seconds(120));
        assert_eq!(backoff(&p, 9, None, 0.0), Duration::seconds(6 * 3600));
        // A factor below 1 keeps the base, as it did before the growth moved to `backoff.rs`.
        let flat = RetryPolicy {
            factor: -4,
            ..RetryPolicy::default()
        };
        assert_eq!(backoff(&flat, 5, None, 0.0), Duration::seconds(30));
    }

    #[test]
    fn retry_after_lengthens_but_is_capped() {
        let p = RetryPolicy::default();
        assert_eq!(
            backoff(&p, 1, Some(Duration::seconds(600)), 0.0),
            Duration::seconds(600)
        );
        assert_eq!(
            backoff(&p, 1, Some(Duration::days(9)), 0.0),
            Duration::hours(24)
        );
        assert_eq!(
            backoff(&p, 3, Some(Duration::seconds(1)), 0.0),
            Duration::seconds(480)
        );
    }

    #[test]
    fn truncation_counts_characters() {
        assert_eq!(truncate("жжж", 2), "жж");
        assert_eq!(truncate("ab", 5), "ab");
    }
}
