//! The server the Socket.IO protocol test suite (socketio/socket.io-protocol)
//! expects: `/` and `/custom` emit `auth` with the CONNECT payload; on `/`,
//! `message` comes back as `message-back` and `message-with-ack` is
//! acknowledged with its own arguments, binary attachments included.
//!
//! `cargo run --release --example socketio_echo` listens on 127.0.0.1:3000;
//! set `PORT` to use another port.

use std::time::Duration;

use actix_web::{App, HttpServer};
use async_trait::async_trait;
use serde_json::Value;
use switchboard::realtime::{self, Event, NamespaceHandler, SocketHandle, SocketIoConfig, SocketIoServer};

struct Echo {
    /// Only the main namespace echoes messages.
    echo_messages: bool,
}

#[async_trait]
impl NamespaceHandler for Echo {
    async fn on_connect(&self, socket: SocketHandle, auth: Value) -> Result<(), String> {
        socket.emit("auth", &auth).map_err(|e| e.to_string())
    }

    async fn on_event(&self, socket: SocketHandle, event: Event) {
        if !self.echo_messages {
            return;
        }
        let result = match event.name.as_str() {
            "message" => socket.emit_with_binary("message-back", &event.args, event.attachments),
            "message-with-ack" => match event.ack {
                Some(ack) => ack.send_with_binary(&event.args, event.attachments),
                None => Ok(()),
            },
            _ => Ok(()),
        };
        if let Err(e) = result {
            tracing::warn!(error = %e, "echo failed");
        }
    }
}

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let port: u16 = match std::env::var("PORT") {
        Ok(p) => p.parse().map_err(|_| std::io::Error::other("PORT must be a port number"))?,
        Err(_) => 3000,
    };
    let config = SocketIoConfig {
        ping_interval: Duration::from_millis(300),
        ping_timeout: Duration::from_millis(200),
        max_payload: 1_000_000,
        connect_timeout: Duration::from_millis(1000),
    };
    let server = SocketIoServer::builder(config)
        .namespace("/", Echo { echo_messages: true })
        .namespace("/custom", Echo { echo_messages: false })
        .build();
    let mut http = HttpServer::new(move || App::new().service(realtime::scope(server.clone())))
        .bind(("127.0.0.1", port))?;
    // "localhost" may resolve to ::1 first; serve it too where IPv6 exists.
    if let Ok(v6) = std::net::TcpListener::bind(("::1", port)) {
        http = http.listen(v6)?;
    }
    println!("socketio_echo listening on 127.0.0.1:{port}");
    http.run().await
}
