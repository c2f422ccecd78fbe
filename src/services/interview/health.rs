//! Liveness: `/health` in the core shape every service shares, and `/api/v1/health`, the
//! readiness check the spec names, which adds the sessions this node runs.

use super::state::InterviewState;
use crate::core::health::Health;
use actix_web::{get, web, HttpResponse};
use serde::Serialize;
use utoipa::ToSchema;

/// The `/api/v1` interface.
const INTERFACE_VERSION: &str = "1.0";

/// Liveness, as the spec shows it (no envelope), with the database and Redis checks.
#[utoipa::path(tag = "health",
    responses((status = 200, body = Health), (status = 503, body = Health)))]
#[get("/health")]
pub async fn health(st: web::Data<InterviewState>) -> HttpResponse {
    Health::probe("interview", INTERFACE_VERSION, &st.core)
        .await
        .response()
}

/// Readiness: 503 when the database does not answer.
#[utoipa::path(tag = "health",
    responses((status = 200, body = ApiHealth), (status = 503, body = ApiHealth)))]
#[get("/api/v1/health")]
pub async fn api_health(st: web::Data<InterviewState>) -> HttpResponse {
    let probed = Health::probe("interview", INTERFACE_VERSION, &st.core).await;
    let mut response = probed.status_code();
    response.json(ApiHealth {
        health: probed,
        active_sessions: st.registry.live(),
    })
}

/// 200 when healthy, 503 (same shape, status unhealthy) when the database is unreachable.
#[derive(Debug, Serialize, ToSchema)]
pub struct ApiHealth {
    /// The core health body (status, service, version, build, timestamp, node, and the
    /// database and Redis checks).
    #[serde(flatten)]
    pub health: Health,
    /// Interview session actors alive in this process.
    pub active_sessions: usize,
}
