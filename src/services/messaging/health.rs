//! Liveness with the database and Redis checks, for load balancers and operators (the spec names none;
//! the body is the core shape every service shares). Its details count the messages `sent`
//! for longer than `stale_sent_after_secs` (reconciliation moves them on).

use super::messages::reports;

use super::state::MessagingState;
use crate::core::health::Health;
use actix_web::{get, web, HttpResponse};
use serde_json::json;

/// The interface version of this service's API (each service versions its own).
const INTERFACE_VERSION: &str = "1.0";

#[utoipa::path(tag = "health",
    responses((status = 200, body = Health), (status = 503, body = Health)))]
#[get("/health")]
pub async fn health(st: web::Data<MessagingState>) -> HttpResponse {
    let stale = reports::stale_count(&st).await.ok();
    Health::probe("messaging", INTERFACE_VERSION, &st.core)
        .await
        .checked(stale.is_some())
        .with_details(json!({
            "stale_sent_messages": stale,
            // Endpoint actors on this node (on several nodes, each endpoint runs on one).
            "webhook_endpoints_running": st.webhooks.running(),
        }))
        .response()
}
