//! A room broadcast to N sockets, on one node without Redis, on one node with the Redis
//! adapter, and from one node to sockets on another over Redis (docs/benchmarks.md).
//!
//! `cargo run --release --example room_broadcast`; environment:
//! `SOCKETS` (default 1000) WebSocket clients in room `bench`, `EMITS` (default 200)
//! broadcasts of a small event, `REDIS_URL` (absent: no adapter), `MODE` `local` (the
//! clients are on the emitting node, default) or `remote` (on a second node; needs
//! `REDIS_URL`). Prints one JSON line: how long the emits took to reach every client, and
//! the deliveries per second.
// A load script: a failed step should stop it loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_web::{App, HttpServer};
use async_trait::async_trait;
use futures_util::{SinkExt, StreamExt};
use switchboard::realtime::{
    self, Event, NamespaceHandler, RedisAdapterConfig, SocketHandle, SocketIoConfig, SocketIoServer,
};
use tokio_tungstenite::tungstenite::Message;

const ROOM: &str = "bench";
const KEY: &str = "switchboard/bench";

/// Every socket joins the room on connect.
struct Joiner;

#[async_trait]
impl NamespaceHandler for Joiner {
    async fn on_connect(&self, socket: SocketHandle, _: serde_json::Value) -> Result<(), String> {
        socket.join(ROOM);
        Ok(())
    }
    async fn on_event(&self, _: SocketHandle, _: Event) {}
}

/// A node on its own actix System and port.
fn node(redis: Option<RedisAdapterConfig>) -> (u16, SocketIoServer) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            let config = SocketIoConfig {
                max_connections_per_ip: 1_000_000,
                max_outbound_queue: 100_000,
                ..SocketIoConfig::default()
            };
            let server = SocketIoServer::builder(config)
                .namespace("/", Joiner)
                .redis_adapter(redis)
                .build();
            let _ = tx.send(server.clone());
            HttpServer::new(move || App::new().service(realtime::scope(server.clone())))
                .workers(1)
                .listen(listener)
                .expect("listen")
                .run()
                .await
        })
    });
    (port, rx.recv().expect("node started"))
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let sockets = env("SOCKETS", 1000);
    let emits = env("EMITS", 200);
    let redis_url = std::env::var("REDIS_URL").ok().filter(|u| !u.is_empty());
    let remote = std::env::var("MODE").is_ok_and(|m| m == "remote");
    assert!(
        !remote || redis_url.is_some(),
        "MODE=remote needs REDIS_URL"
    );
    let adapter = || {
        redis_url.clone().map(|url| RedisAdapterConfig {
            url,
            key: KEY.to_owned(),
            roots: Default::default(),
        })
    };
    let (emitter_port, emitter) = node(adapter());
    // The clients' node: the emitter itself, or a second node over Redis.
    let (port, receiver) = if remote {
        node(adapter())
    } else {
        (emitter_port, emitter.clone())
    };

    let received = Arc::new(AtomicUsize::new(0));
    for _ in 0..sockets {
        let url = format!("ws://127.0.0.1:{port}/socket.io/?EIO=4&transport=websocket");
        let (mut ws, _) = tokio_tungstenite::connect_async(url)
            .await
            .expect("connect");
        let _open = ws.next().await;
        ws.send(Message::text("40")).await.expect("send");
        let _connected = ws.next().await;
        let received = received.clone();
        tokio::spawn(async move {
            while let Some(Ok(msg)) = ws.next().await {
                match msg {
                    Message::Text(t) if t.as_str() == "2" => {
                        let _ = ws.send(Message::text("3")).await;
                    }
                    Message::Text(t) if t.starts_with("42") => {
                        received.fetch_add(1, Ordering::Relaxed);
                    }
                    _ => {}
                }
            }
        });
    }
    while receiver.room_members("/", ROOM).await.len() < sockets {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    if remote {
        // Both nodes subscribed before the clock starts.
        tokio::time::sleep(Duration::from_millis(500)).await;
    }

    let expected = sockets * emits;
    let started = Instant::now();
    for i in 0..emits {
        emitter.emit_to_room("/", ROOM, "tick", &i).expect("encode");
    }
    let emitted = started.elapsed();
    let deadline = started + Duration::from_secs(120);
    while received.load(Ordering::Relaxed) < expected && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let elapsed = started.elapsed().as_secs_f64();
    let got = received.load(Ordering::Relaxed);
    println!(
        "{}",
        serde_json::json!({
            "mode": if remote { "remote" } else { "local" },
            "redis": redis_url.is_some(),
            "sockets": sockets,
            "emits": emits,
            "delivered": got,
            "emit_loop_ms": emitted.as_secs_f64() * 1e3,
            "all_delivered_ms": elapsed * 1e3,
            "deliveries_per_s": (got as f64 / elapsed).round(),
            "broadcasts_per_s": (emits as f64 / elapsed).round(),
        })
    );
}
