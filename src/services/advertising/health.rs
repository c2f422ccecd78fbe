//! Liveness with a database check (the core body every service shares).

use super::state::AdvertisingState;
use crate::core::http::Health;
use actix_web::{get, web, HttpResponse};
use sea_orm::ConnectionTrait;

pub const INTERFACE_VERSION: &str = "1.0";

#[utoipa::path(tag = "health",
    responses((status = 200, body = Health), (status = 503, body = Health)))]
#[get("/health")]
pub async fn health(st: web::Data<AdvertisingState>) -> HttpResponse {
    let db_up = st.core.db.execute_unprepared("SELECT 1").await.is_ok();
    Health::new("advertising", INTERFACE_VERSION, &st.core)
        .checked(db_up)
        .response()
}
