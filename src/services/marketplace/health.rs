//! Liveness with a database check (the core body every service shares).

use crate::core::http::Health;
use crate::services::marketplace::state::MarketplaceState;
use actix_web::{get, web, HttpResponse};
use sea_orm::ConnectionTrait;

/// The interface version of this service's API (`application/vnd.service.v1+json`).
pub const INTERFACE_VERSION: &str = "1.0";

#[utoipa::path(tag = "health",
    responses((status = 200, body = Health), (status = 503, body = Health)))]
#[get("/health")]
pub async fn health(st: web::Data<MarketplaceState>) -> HttpResponse {
    let db_up = st.core.db.execute_unprepared("SELECT 1").await.is_ok();
    Health::new("marketplace", INTERFACE_VERSION, &st.core)
        .checked(db_up)
        .response()
}
