use super::dto::Health;
use super::IdentityState;
use actix_web::{web, HttpResponse};

/// Not wrapped in the envelope, as the spec shows it.
#[utoipa::path(get, path = "/health", tag = "health", responses((status = 200, body = Health), super::openapi::Errors))]
pub async fn health(st: web::Data<IdentityState>) -> HttpResponse {
    HttpResponse::Ok().json(Health {
        status: "ok".into(),
        version: st.core.settings.server.version.clone(),
        timestamp: st.core.now(),
    })
}
