//! Engine.IO / Socket.IO server settings.

use crate::core::config::{ClusterSettings, RealtimeSettings};
use crate::core::tls::ExtraRoots;
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
    /// Connections served at once; the next handshake gets 503.
    pub max_connections: usize,
    /// Connections from one client address at once; the next gets 429.
    pub max_connections_per_ip: usize,
    /// A connection no handler has admitted ([`SocketHandle::admit`]) by
    /// then is closed; `None` admits every connection.
    ///
    /// [`SocketHandle::admit`]: super::SocketHandle::admit
    pub admission_timeout: Option<Duration>,
    /// Packets that may wait for one client (in the polling queue or the
    /// connection's mailbox); a client slower than that is disconnected.
    pub max_outbound_queue: usize,
    /// Event handlers of one connection running at once; a client that
    /// sends more is disconnected.
    pub max_handlers_in_flight: usize,
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
            max_connections: 100_000,
            max_connections_per_ip: 1_000,
            admission_timeout: None,
            max_outbound_queue: 1_024,
            max_handlers_in_flight: 32,
        }
    }
}

impl SocketIoConfig {
    /// The limits of `[realtime]`, which every service serving `/socket.io/` shares.
    pub fn from_settings(rt: &RealtimeSettings) -> Self {
        Self {
            coalesce_window: Duration::from_micros(rt.coalesce_window_us),
            max_connections: rt.max_connections,
            max_connections_per_ip: rt.max_connections_per_ip,
            // A connection is admitted by its service (a valid token); others are closed.
            admission_timeout: (rt.admission_timeout_secs > 0)
                .then(|| Duration::from_secs(rt.admission_timeout_secs)),
            max_outbound_queue: rt.max_outbound_queue,
            max_handlers_in_flight: rt.max_handlers_in_flight,
            ..Self::default()
        }
    }
}

/// Where a server's rooms meet the other nodes': the Redis URL and the channel prefix
/// (the Node adapter's `key`).
#[derive(Debug, Clone)]
pub struct RedisAdapterConfig {
    pub url: String,
    pub key: String,
    /// Trusted besides the system's roots over `rediss://` (`[tls] extra_ca_file`).
    pub roots: ExtraRoots,
}

impl RedisAdapterConfig {
    /// Rooms of `service` across the cluster's nodes, when `[cluster]` has a Redis.
    pub fn from_settings(
        cluster: &ClusterSettings,
        rt: &RealtimeSettings,
        service: &str,
        roots: &ExtraRoots,
    ) -> Option<Self> {
        Some(Self {
            url: cluster.redis()?.to_owned(),
            key: rt.adapter_key(service),
            roots: roots.clone(),
        })
    }
}
