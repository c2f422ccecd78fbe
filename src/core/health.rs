//! The one health body of every service: liveness, and what this node depends on (the
//! database, and Redis when the cluster has one) with each one's round-trip time, each asked
//! with one timeout (the probes', `core::probes`, too).

use super::http::json;
use super::CoreContext;
use actix_web::{HttpResponse, HttpResponseBuilder};
use sea_orm::ConnectionTrait;
use serde::Serialize;
use std::time::{Duration, Instant};
use utoipa::ToSchema;

/// Longest a dependency may take to answer a check or a probe: one that hangs is worse than
/// one that says "down" (a balancer's own timeout would hide which dependency it was).
pub const TIMEOUT: Duration = Duration::from_secs(2);

/// `version` is the service's interface version (what clients code against); `build` the
/// server build.
#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// `healthy`, or `unhealthy` (with status 503) when the database or a service check failed.
    pub status: &'static str,
    pub service: &'static str,
    pub version: &'static str,
    pub build: String,
    #[serde(serialize_with = "super::clock::serialize_utc")]
    pub timestamp: chrono::DateTime<chrono::Utc>,
    /// This node in its cluster.
    pub node: String,
    pub checks: Checks,
    /// Service-specific figures for operators (absent when the service reports none).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub details: Option<serde_json::Value>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Checks {
    pub database: Check,
    /// Redis, which the nodes of a cluster share (`not_configured` on a single node). A node
    /// whose Redis is down still serves, so it stays healthy: limits count locally meanwhile,
    /// and sign-in and codes are refused.
    pub redis: Check,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Check {
    /// `up`, `down` or `not_configured`.
    pub status: &'static str,
    /// The round trip, when it was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
}

impl Check {
    const NOT_CONFIGURED: Self = Self {
        status: "not_configured",
        latency_ms: None,
    };

    fn timed(up: bool, took: Duration) -> Self {
        Self {
            status: if up { "up" } else { "down" },
            latency_ms: Some(u64::try_from(took.as_millis()).unwrap_or(u64::MAX)),
        }
    }

    pub fn is_up(&self) -> bool {
        self.status == "up"
    }

    pub fn is_down(&self) -> bool {
        self.status == "down"
    }

    /// `ask`'s answer, timed; down when it fails or takes longer than the probes' timeout.
    async fn of(ask: impl std::future::Future<Output = bool>) -> Self {
        let started = Instant::now();
        let up = tokio::time::timeout(TIMEOUT, ask).await.unwrap_or(false);
        Self::timed(up, started.elapsed())
    }
}

/// What this node depends on, asked at the same time.
pub struct Dependencies {
    pub database: Check,
    pub redis: Check,
}

impl Dependencies {
    pub async fn probe(ctx: &CoreContext) -> Self {
        let database = Check::of(async { ctx.db.execute_unprepared("SELECT 1").await.is_ok() });
        let redis = async {
            match ctx.cluster.redis_configured() {
                false => Check::NOT_CONFIGURED,
                true => Check::of(async { ctx.cluster.ping().await.unwrap_or(false) }).await,
            }
        };
        let (database, redis) = tokio::join!(database, redis);
        Self { database, redis }
    }
}

impl Health {
    /// Asks the database and Redis (at the same time) how they are.
    pub async fn probe(service: &'static str, version: &'static str, ctx: &CoreContext) -> Self {
        let Dependencies { database, redis } = Dependencies::probe(ctx).await;
        let healthy = database.is_up();
        Self {
            status: if healthy { "healthy" } else { "unhealthy" },
            service,
            version,
            build: ctx.settings.server.version.clone(),
            timestamp: ctx.now(),
            node: ctx.cluster.node_id.to_string(),
            checks: Checks { database, redis },
            details: None,
        }
    }

    /// Adds the service's own figures.
    pub fn with_details(mut self, details: serde_json::Value) -> Self {
        self.details = Some(details);
        self
    }

    /// Marks the body unhealthy unless `up` (a service's own check).
    pub fn checked(mut self, up: bool) -> Self {
        if !up {
            self.status = "unhealthy";
        }
        self
    }

    pub fn is_healthy(&self) -> bool {
        self.status == "healthy"
    }

    /// 200 when healthy, 503 otherwise.
    pub fn status_code(&self) -> HttpResponseBuilder {
        if self.is_healthy() {
            HttpResponse::Ok()
        } else {
            HttpResponse::ServiceUnavailable()
        }
    }

    pub fn response(self) -> HttpResponse {
        json(self.status_code(), &self)
    }
}
