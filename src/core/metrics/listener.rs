//! The metrics listener (`[telemetry] metrics_bind`): `GET /metrics` and nothing else, apart
//! from the services' listeners so that it is never exposed with them.

use crate::core::server::{Listening, MountError};
use crate::core::CoreContext;
use actix_web::{web, App, HttpResponse, HttpServer};
use prometheus_client::encoding::prometheus_text::CONTENT_TYPE;
use std::net::TcpListener;

pub const NAME: &str = "metrics";

async fn metrics(ctx: web::Data<CoreContext>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(CONTENT_TYPE)
        .body(super::scrape::page(&ctx).await)
}

/// Starts the listener on `bind` with one worker (a scrape every few seconds needs no more).
pub fn serve(bind: &str, ctx: &CoreContext) -> Result<Listening, MountError> {
    let listener = TcpListener::bind(bind)?;
    let addr = listener.local_addr()?;
    let ctx = web::Data::new(ctx.clone());
    let server = HttpServer::new(move || {
        App::new()
            .app_data(ctx.clone())
            .route("/metrics", web::get().to(metrics))
    })
    .listen(listener)?
    .workers(1)
    .disable_signals()
    .run();
    Ok(Listening {
        name: NAME,
        addr,
        server,
    })
}
