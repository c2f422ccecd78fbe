//! Liveness with a database check, for load balancers and operators (the spec names none;
//! the shape matches the other services').

use super::MessagingState;
use actix_web::{web, HttpResponse};
use sea_orm::ConnectionTrait;
use serde::Serialize;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
pub struct Health {
    /// `ok`, or `degraded` when the database does not answer.
    pub status: String,
    pub service: String,
    pub version: String,
    pub timestamp: chrono::DateTime<chrono::Utc>,
}

#[utoipa::path(get, path = "/health", tag = "health",
    responses((status = 200, body = Health), (status = 503, body = Health)))]
pub async fn health(st: web::Data<MessagingState>) -> HttpResponse {
    let db_up = st.core.db.execute_unprepared("SELECT 1").await.is_ok();
    let body = Health {
        status: if db_up { "ok" } else { "degraded" }.into(),
        service: "messaging".into(),
        version: st.core.settings.server.version.clone(),
        timestamp: st.core.now(),
    };
    if db_up {
        HttpResponse::Ok().json(body)
    } else {
        HttpResponse::ServiceUnavailable().json(body)
    }
}
