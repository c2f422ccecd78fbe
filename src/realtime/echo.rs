//! The namespaces of the Socket.IO protocol test suite
//! (socketio/socket.io-protocol): the `socketio_echo` example serves them and
//! the protocol tests run against them.
//!
//! `/` and `/custom` emit `auth` with the CONNECT payload; on `/`, `message`
//! comes back as `message-back` and `message-with-ack` is acknowledged with
//! its own arguments, binary attachments included.

use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;

use super::{Event, NamespaceHandler, SocketHandle, SocketIoConfig, SocketIoServer};

/// The timings the test suite expects.
pub fn conformance_config() -> SocketIoConfig {
    SocketIoConfig {
        ping_interval: Duration::from_millis(300),
        ping_timeout: Duration::from_millis(200),
        max_payload: 1_000_000,
        connect_timeout: Duration::from_millis(1000),
        ..SocketIoConfig::default()
    }
}

/// A server with `/` and `/custom` as the test suite expects, on `config`
/// (usually [`conformance_config`]); call inside
/// an actix `System`.
pub fn conformance_server(config: SocketIoConfig) -> SocketIoServer {
    SocketIoServer::builder(config)
        .namespace(
            "/",
            Echo {
                echo_messages: true,
            },
        )
        .namespace(
            "/custom",
            Echo {
                echo_messages: false,
            },
        )
        .build()
}

pub struct Echo {
    /// Only the main namespace echoes messages.
    pub echo_messages: bool,
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
