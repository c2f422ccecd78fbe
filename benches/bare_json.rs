//! The ceiling of request benchmarks: a bare actix-web handler answering a small JSON body,
//! on the services' worker count, with nothing else in the way (benches/session_load.sh
//! measures it in the same run as the services).
//!
//! `cargo run --release --example bare_json -- 127.0.0.1:18299`

use actix_web::{get, App, HttpResponse, HttpServer};

#[get("/")]
async fn answer() -> HttpResponse {
    HttpResponse::Ok().json(serde_json::json!({"success": true, "data": {"ok": true}}))
}

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let bind = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:18299".into());
    // As core::server sizes every listener.
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(4);
    HttpServer::new(|| App::new().service(answer))
        .workers(workers)
        .bind(bind)?
        .run()
        .await
}
