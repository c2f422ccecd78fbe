//! Liveness with the database and Redis checks, in the core shape every service shares, with
//! the identity interface version.

use super::state::IdentityState;
use crate::core::health::Health;
use actix_web::{get, web, HttpResponse};

/// The identity interface version the spec names; the build goes in `build`.
pub const INTERFACE_VERSION: &str = "1.0";

/// Not wrapped in the envelope, as the spec shows it.
#[utoipa::path(tag = "health", responses((status = 200, body = Health), (status = 503, body = Health), super::openapi::Errors))]
#[get("/health")]
pub async fn health(st: web::Data<IdentityState>) -> HttpResponse {
    Health::probe("identity", INTERFACE_VERSION, &st.core)
        .await
        .response()
}
