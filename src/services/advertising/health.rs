//! Liveness with the database and Redis checks (the core body every service shares).

use super::state::AdvertisingState;
use crate::core::health::Health;
use actix_web::{get, web, HttpResponse};

pub const INTERFACE_VERSION: &str = "1.0";

#[utoipa::path(tag = "health",
    responses((status = 200, body = Health), (status = 503, body = Health)))]
#[get("/health")]
pub async fn health(st: web::Data<AdvertisingState>) -> HttpResponse {
    Health::probe("advertising", INTERFACE_VERSION, &st.core)
        .await
        .response()
}
