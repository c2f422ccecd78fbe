//! What one application reads at scrape time: the job queue (two grouped reads), the
//! database pool, Redis and the running actors. Each scrape builds its gauges afresh, so a
//! topic whose backlog emptied disappears instead of lingering at its last value.

use super::{EncodeLabelSet, Family, Gauge, Registry};
use crate::core::CoreContext;
use prometheus_client::metrics::gauge::Gauge as FloatGauge;
use sea_orm::DbBackend;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

type Seconds = FloatGauge<f64, AtomicU64>;

/// A pool connection is asked for at most this long at scrape time.
const ACQUIRE_PROBE: Duration = Duration::from_secs(2);

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct QueueLabels {
    topic: String,
    status: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct TopicLabels {
    topic: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ActorLabels {
    service: &'static str,
    kind: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StateLabels {
    state: &'static str,
}

pub(super) async fn read(ctx: &CoreContext) -> Registry {
    let mut registry = Registry::with_prefix("switchboard");
    jobs(ctx, &mut registry).await;
    pool(ctx, &mut registry).await;
    redis(ctx, &mut registry).await;
    let actors = Family::<ActorLabels, Gauge>::default();
    for (service, kind, n) in running_actors(ctx) {
        actors
            .get_or_create(&ActorLabels { service, kind })
            .set(i64::try_from(n).unwrap_or(i64::MAX));
    }
    registry.register(
        "actors_running",
        "Actors running on this node, by service and kind",
        actors,
    );
    registry
}

async fn jobs(ctx: &CoreContext, registry: &mut Registry) {
    let now = ctx.now();
    let up: Gauge = Gauge::default();
    registry.register(
        "jobs_scrape_ok",
        "1 when the job queue could be read for this scrape",
        up.clone(),
    );
    let backlog = match crate::core::jobs::backlog(&ctx.db, now).await {
        Ok(b) => b,
        Err(e) => {
            tracing::warn!(error = %e, "metrics: reading the job queue failed");
            return;
        }
    };
    up.set(1);
    let jobs = Family::<QueueLabels, Gauge>::default();
    for (topic, status, n) in backlog.counts {
        jobs.get_or_create(&QueueLabels { topic, status }).set(n);
    }
    registry.register(
        "jobs",
        "Jobs in the queue by topic and status (queued, running, dead)",
        jobs,
    );
    let age = Family::<TopicLabels, Seconds>::default();
    for (topic, due) in backlog.oldest_due {
        let secs = (now - due).num_milliseconds().max(0) as f64 / 1000.0;
        age.get_or_create(&TopicLabels { topic }).set(secs);
    }
    registry.register(
        "job_oldest_due_age_seconds",
        "How long the oldest due queued job of each topic has waited",
        age,
    );
}

async fn pool(ctx: &CoreContext, registry: &mut Registry) {
    let (size, idle, waited) = match ctx.db.get_database_backend() {
        DbBackend::Sqlite => {
            let pool = ctx.db.get_sqlite_connection_pool();
            (pool.size(), pool.num_idle(), acquire(pool).await)
        }
        DbBackend::Postgres => {
            let pool = ctx.db.get_postgres_connection_pool();
            (pool.size(), pool.num_idle(), acquire(pool).await)
        }
        _ => return,
    };
    let idle = u32::try_from(idle).unwrap_or(u32::MAX);
    let connections = Family::<StateLabels, Gauge>::default();
    connections
        .get_or_create(&StateLabels { state: "in_use" })
        .set(i64::from(size.saturating_sub(idle)));
    connections
        .get_or_create(&StateLabels { state: "idle" })
        .set(i64::from(idle));
    registry.register(
        "db_pool_connections",
        "Database pool connections in use and idle",
        connections,
    );
    let max: Gauge = Gauge::default();
    max.set(i64::from(ctx.settings.database.max_connections));
    registry.register(
        "db_pool_max_connections",
        "The pool's ceiling ([database] max_connections)",
        max,
    );
    let wait = Seconds::default();
    wait.set(waited.as_secs_f64());
    registry.register(
        "db_pool_acquire_seconds",
        "How long this scrape waited for a pool connection (a request waits about as long)",
        wait,
    );
}

/// How long one checkout takes now; the connection goes straight back.
async fn acquire<DB: sea_orm::sqlx::Database>(pool: &sea_orm::sqlx::Pool<DB>) -> Duration {
    let started = Instant::now();
    match tokio::time::timeout(ACQUIRE_PROBE, pool.acquire()).await {
        Ok(Ok(conn)) => {
            drop(conn);
            started.elapsed()
        }
        _ => ACQUIRE_PROBE,
    }
}

async fn redis(ctx: &CoreContext, registry: &mut Registry) {
    let Some(up) = ctx.cluster.ping().await else {
        return;
    };
    let gauge: Gauge = Gauge::default();
    gauge.set(i64::from(up));
    registry.register(
        "redis_up",
        "1 when the cluster's Redis answered PING for this scrape",
        gauge,
    );
    if let Some(subscribed) = ctx.cluster.bus.subscribed() {
        let gauge: Gauge = Gauge::default();
        gauge.set(i64::from(subscribed));
        registry.register(
            "bus_subscribed",
            "1 while this node's cluster bus subscription to Redis is up, 0 while it is down",
            gauge,
        );
    }
}

/// The whole exposition: this process's counters, then what `ctx` reads now.
pub async fn page(ctx: &CoreContext) -> String {
    let mut text = String::with_capacity(16 * 1024);
    if let Err(e) =
        prometheus_client::encoding::prometheus_text::encode(&mut text, &super::process().registry)
    {
        tracing::warn!(error = %e, "metrics: encoding failed");
    }
    let now = read(ctx).await;
    if let Err(e) = prometheus_client::encoding::prometheus_text::encode(&mut text, &now) {
        tracing::warn!(error = %e, "metrics: encoding failed");
    }
    text
}

fn running_actors(ctx: &CoreContext) -> Vec<(&'static str, &'static str, usize)> {
    ctx.metrics.running()
}
