//! The server the Socket.IO protocol test suite (socketio/socket.io-protocol)
//! runs against; see `switchboard::realtime::echo` for what it does.
//!
//! `cargo run --release --example socketio_echo` listens on 127.0.0.1:3000
//! (and [::1]:3000 where IPv6 exists); set `PORT` to use another port and
//! `WORKERS` for the number of worker threads and `COALESCE_US` for the
//! load-adaptive I/O coalescing window in microseconds (default 500, as in
//! config.toml; 0 turns it off), and `MAX_CONNECTIONS_PER_IP` for the per-address
//! connection cap (default 1,000, as in config.toml; the benchmark raises it).
//! `GET /rest/ping` is a plain JSON route on the same workers, so a benchmark can
//! measure REST latency while Socket.IO load runs (benches/socketio/rest_under_load.sh).

use actix_web::{web, App, HttpResponse, HttpServer};
use switchboard::realtime::{self, echo, SocketIoConfig};

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let port: u16 = match std::env::var("PORT") {
        Ok(p) => p
            .parse()
            .map_err(|_| std::io::Error::other("PORT must be a port number"))?,
        Err(_) => 3000,
    };
    // WORKERS sets the number of actix worker threads (default: one per core).
    let workers = match std::env::var("WORKERS") {
        Ok(w) => w
            .parse()
            .map_err(|_| std::io::Error::other("WORKERS must be a number"))?,
        Err(_) => std::thread::available_parallelism().map_or(1, usize::from),
    };
    let coalesce_us = match std::env::var("COALESCE_US") {
        Ok(us) => us
            .parse()
            .map_err(|_| std::io::Error::other("COALESCE_US must be a number"))?,
        Err(_) => 500,
    };
    let defaults = echo::conformance_config();
    let max_connections_per_ip = match std::env::var("MAX_CONNECTIONS_PER_IP") {
        Ok(n) => n
            .parse()
            .map_err(|_| std::io::Error::other("MAX_CONNECTIONS_PER_IP must be a number"))?,
        Err(_) => defaults.max_connections_per_ip,
    };
    let config = SocketIoConfig {
        coalesce_window: std::time::Duration::from_micros(coalesce_us),
        max_connections_per_ip,
        ..defaults
    };
    let server = echo::conformance_server(config);
    let mut http = HttpServer::new(move || {
        App::new()
            .service(realtime::scope(server.clone()))
            .route("/rest/ping", web::get().to(ping))
    })
    .workers(workers)
    .bind(("127.0.0.1", port))?;
    // "localhost" may resolve to ::1 first; serve it too where IPv6 exists.
    if let Ok(v6) = std::net::TcpListener::bind(("::1", port)) {
        http = http.listen(v6)?;
    }
    println!("socketio_echo listening on 127.0.0.1:{port}");
    http.run().await
}

/// What a small REST handler costs: a JSON body with the time.
async fn ping() -> HttpResponse {
    HttpResponse::Ok().json(serde_json::json!({ "status": "ok", "at": chrono::Utc::now() }))
}
