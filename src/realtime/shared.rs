//! What every connection of one server reads, below the server object and the transports:
//! the settings, the namespace handlers, the hub's address, and the count of live connections
//! that admits or refuses a new one.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use actix::Addr;
use dashmap::DashMap;

use super::adapter::Adapter;
use super::config::SocketIoConfig;
use super::hub::Hub;
use super::rooms::Rooms;
use super::socket::NamespaceHandler;

/// Shared by every connection of one server (each holds it by reference count).
pub(crate) struct Shared {
    config: SocketIoConfig,
    namespaces: HashMap<String, Arc<dyn NamespaceHandler>>,
    hub: Addr<Hub>,
    /// The same hub, as the port the socket handles reach it through.
    rooms: Arc<dyn Rooms>,
    connections: Arc<Connections>,
    /// The other nodes, when rooms span a cluster (client acks may be theirs).
    adapter: Option<Arc<Adapter>>,
}

/// Live Engine.IO connections of this process, in total and per client
/// address (per process: each node enforces its own share).
#[derive(Default)]
struct Connections {
    total: AtomicUsize,
    per_ip: DashMap<String, usize>,
}

/// Why a handshake was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    ServerFull,
    TooManyFromAddress,
}

/// One admitted connection: counted until dropped (it travels inside the
/// connection's `Conn`, so an upgrade keeps it and a close releases it).
pub(crate) struct Permit {
    connections: Arc<Connections>,
    ip: String,
    _counted: crate::core::metrics::SocketOpen,
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.connections.total.fetch_sub(1, Ordering::AcqRel);
        if let dashmap::Entry::Occupied(mut e) = self.connections.per_ip.entry(self.ip.clone()) {
            *e.get_mut() -= 1;
            if *e.get() == 0 {
                e.remove();
            }
        }
    }
}

impl Shared {
    pub(crate) fn new(
        config: SocketIoConfig,
        namespaces: HashMap<String, Arc<dyn NamespaceHandler>>,
        hub: Addr<Hub>,
        adapter: Option<Arc<Adapter>>,
    ) -> Self {
        Self {
            config,
            namespaces,
            rooms: Arc::new(hub.clone()),
            hub,
            connections: Arc::default(),
            adapter,
        }
    }

    pub(crate) fn adapter(&self) -> Option<&Arc<Adapter>> {
        self.adapter.as_ref()
    }

    pub(crate) fn config(&self) -> &SocketIoConfig {
        &self.config
    }

    pub(crate) fn hub(&self) -> &Addr<Hub> {
        &self.hub
    }

    pub(crate) fn rooms(&self) -> &Arc<dyn Rooms> {
        &self.rooms
    }

    pub(crate) fn namespace(&self, name: &str) -> Option<&Arc<dyn NamespaceHandler>> {
        self.namespaces.get(name)
    }

    /// Counts a new connection from `ip`, or says which cap it would pass.
    pub(crate) fn admit_connection(&self, ip: String) -> Result<Permit, Refusal> {
        let connections = &self.connections;
        let max = self.config.max_connections;
        if connections
            .total
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .is_err()
        {
            return Err(Refusal::ServerFull);
        }
        let mut count = connections.per_ip.entry(ip.clone()).or_insert(0);
        if *count >= self.config.max_connections_per_ip {
            drop(count);
            connections.total.fetch_sub(1, Ordering::AcqRel);
            return Err(Refusal::TooManyFromAddress);
        }
        *count += 1;
        drop(count);
        Ok(Permit {
            connections: connections.clone(),
            ip,
            _counted: crate::core::metrics::SocketOpen::new(),
        })
    }

    /// The Engine.IO open packet's JSON.
    pub(crate) fn open_json(&self, sid: &str, can_upgrade: bool) -> String {
        let upgrades: &[&str] = if can_upgrade { &["websocket"] } else { &[] };
        serde_json::json!({
            "sid": sid,
            "upgrades": upgrades,
            "pingInterval": duration_ms(self.config.ping_interval),
            "pingTimeout": duration_ms(self.config.ping_timeout),
            "maxPayload": self.config.max_payload,
        })
        .to_string()
    }
}

fn duration_ms(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// A random id for Engine.IO sessions and Socket.IO sockets: 120 bits,
/// URL-safe so it can travel in a query string unescaped.
pub(crate) fn random_id() -> Arc<str> {
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine as _;
    let bytes: [u8; 15] = rand::random();
    Arc::from(URL_SAFE_NO_PAD.encode(bytes))
}
