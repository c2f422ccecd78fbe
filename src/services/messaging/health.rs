//! Liveness with a database check, for load balancers and operators (the spec names none;
//! the body is the core shape every service shares).

use super::MessagingState;
use crate::core::http::Health;
use actix_web::{get, web, HttpResponse};
use sea_orm::ConnectionTrait;

/// The interface version of this service's API (each service versions its own).
const INTERFACE_VERSION: &str = "1.0";

#[utoipa::path(tag = "health",
    responses((status = 200, body = Health), (status = 503, body = Health)))]
#[get("/health")]
pub async fn health(st: web::Data<MessagingState>) -> HttpResponse {
    let db_up = st.core.db.execute_unprepared("SELECT 1").await.is_ok();
    Health::new("messaging", INTERFACE_VERSION, &st.core)
        .checked(db_up)
        .response()
}
