//! Liveness with the database and Redis checks (the core body every service shares).

use crate::core::health::Health;
use crate::services::marketplace::state::MarketplaceState;
use actix_web::{get, web, HttpResponse};

/// The interface version of this service's API (`application/vnd.service.v1+json`).
pub const INTERFACE_VERSION: &str = "1.0";

#[utoipa::path(tag = "health",
    responses((status = 200, body = Health), (status = 503, body = Health)))]
#[get("/health")]
pub async fn health(st: web::Data<MarketplaceState>) -> HttpResponse {
    Health::probe("marketplace", INTERFACE_VERSION, &st.core)
        .await
        // Conversation actors on this node (on several nodes, each runs on one).
        .with_details(serde_json::json!({ "conversations_running": st.conversations.live() }))
        .response()
}
