//! Engine.IO / Socket.IO server settings.

use std::time::Duration;

/// Timing and size limits announced to clients in the open packet.
#[derive(Debug, Clone)]
pub struct SocketIoConfig {
    /// How often the server pings each client.
    pub ping_interval: Duration,
    /// How long a client has to answer a ping before it is dropped.
    pub ping_timeout: Duration,
    /// Largest WebSocket frame or polling request body accepted, in bytes.
    pub max_payload: usize,
    /// How long a new connection may wait before joining a namespace.
    pub connect_timeout: Duration,
    /// Under sustained load, how long a worker gathers socket I/O before its
    /// next sweep (see `pacing`); zero (the default here; the server's config
    /// sets 500 µs) handles every frame at once.
    pub coalesce_window: Duration,
}

impl Default for SocketIoConfig {
    /// The defaults of the reference (Node.js) server.
    fn default() -> Self {
        Self {
            ping_interval: Duration::from_millis(25_000),
            ping_timeout: Duration::from_millis(20_000),
            max_payload: 1_000_000,
            connect_timeout: Duration::from_millis(45_000),
            coalesce_window: Duration::ZERO,
        }
    }
}
