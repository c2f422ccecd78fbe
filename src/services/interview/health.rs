//! Liveness: `/health` in the core shape every service shares, and `/api/v1/health` with the
//! database check the spec shows.

use super::state::InterviewState;
use crate::core::http::Health;
use actix_web::{get, web, HttpResponse};
use sea_orm::ConnectionTrait;
use serde::Serialize;
use std::time::Instant;
use utoipa::ToSchema;

/// The `/api/v1` interface.
const INTERFACE_VERSION: &str = "1.0";

/// Liveness, as the spec shows it (no envelope, no database call).
#[utoipa::path(tag = "health", responses((status = 200, body = Health)))]
#[get("/health")]
pub async fn health(st: web::Data<InterviewState>) -> HttpResponse {
    Health::new("interview", INTERFACE_VERSION, &st.core).response()
}

/// Readiness with a database round trip; 503 when the database does not answer.
#[utoipa::path(tag = "health",
    responses((status = 200, body = ApiHealth), (status = 503, body = ApiHealth)))]
#[get("/api/v1/health")]
pub async fn api_health(st: web::Data<InterviewState>) -> HttpResponse {
    let started = Instant::now();
    let up = st.core.db.execute_unprepared("SELECT 1").await.is_ok();
    let body = ApiHealth {
        health: Health::new("interview", INTERFACE_VERSION, &st.core).checked(up),
        checks: HealthChecks {
            database: DatabaseCheck {
                status: if up { "up" } else { "down" }.into(),
                latency_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            },
        },
        active_sessions: st.registry.live(),
    };
    if up {
        HttpResponse::Ok().json(body)
    } else {
        HttpResponse::ServiceUnavailable().json(body)
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DatabaseCheck {
    /// up or down
    pub status: String,
    pub latency_ms: u64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct HealthChecks {
    pub database: DatabaseCheck,
}

/// 200 when healthy, 503 (same shape, status unhealthy) when the database is unreachable.
#[derive(Debug, Serialize, ToSchema)]
pub struct ApiHealth {
    /// The core health body (status healthy or unhealthy, service, version, build, timestamp).
    #[serde(flatten)]
    pub health: crate::core::http::Health,
    pub checks: HealthChecks,
    /// Interview session actors alive in this process.
    pub active_sessions: usize,
}
