//! The server object an application builds once: namespaces with their
//! handlers, settings, the hub, and the live long-polling sessions.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use actix::{Actor, Addr};
use dashmap::DashMap;
use serde::Serialize;

use super::config::SocketIoConfig;
use super::hub::{self, Hub};
use super::polling::PollingEntry;
use super::socket::{NamespaceHandler, SocketHandle};
use super::socketio::{self, EncodeError};

/// Cheap to clone; every clone is the same server.
#[derive(Clone)]
pub struct SocketIoServer(Arc<Inner>);

struct Inner {
    config: SocketIoConfig,
    namespaces: HashMap<String, Arc<dyn NamespaceHandler>>,
    hub: Addr<Hub>,
    polling: DashMap<Arc<str>, PollingEntry>,
    connections: Arc<Connections>,
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

/// Collects namespaces before the server starts.
pub struct SocketIoServerBuilder {
    config: SocketIoConfig,
    namespaces: HashMap<String, Arc<dyn NamespaceHandler>>,
}

impl SocketIoServerBuilder {
    /// Registers the handler for namespace `name` (`"/"` is the main one).
    pub fn namespace(mut self, name: &str, handler: impl NamespaceHandler) -> Self {
        self.namespaces.insert(name.to_owned(), Arc::new(handler));
        self
    }

    /// Starts the hub actor; call from inside an actix `System`
    /// (e.g. under `#[actix_web::main]`).
    pub fn build(self) -> SocketIoServer {
        SocketIoServer(Arc::new(Inner {
            config: self.config,
            namespaces: self.namespaces,
            hub: Hub::default().start(),
            polling: DashMap::new(),
            connections: Arc::default(),
        }))
    }
}

impl SocketIoServer {
    pub fn builder(config: SocketIoConfig) -> SocketIoServerBuilder {
        SocketIoServerBuilder {
            config,
            namespaces: HashMap::new(),
        }
    }

    pub fn config(&self) -> &SocketIoConfig {
        &self.0.config
    }

    /// The hub, for presence queries ([`hub::RoomMembers`], [`hub::SocketCount`]).
    pub fn hub(&self) -> &Addr<Hub> {
        &self.0.hub
    }

    /// Emits `event` with one argument to every socket in `room` of `nsp`;
    /// the packet is encoded once for all of them.
    pub fn emit_to_room<T: Serialize + ?Sized>(
        &self,
        nsp: &str,
        room: &str,
        event: &str,
        data: &T,
    ) -> Result<(), EncodeError> {
        let frame = socketio::event_frame_one(nsp, event, data)?;
        self.0.hub.do_send(hub::EmitToRoom {
            nsp: Arc::from(nsp),
            room: room.to_owned(),
            frame,
            except: None,
        });
        Ok(())
    }

    /// The sockets currently in `room` of `nsp`.
    pub async fn room_members(&self, nsp: &str, room: &str) -> Vec<SocketHandle> {
        self.0
            .hub
            .send(hub::RoomMembers {
                nsp: Arc::from(nsp),
                room: room.to_owned(),
            })
            .await
            .unwrap_or_default()
    }

    /// How many sockets are connected, over all namespaces.
    pub async fn socket_count(&self) -> usize {
        self.0.hub.send(hub::SocketCount).await.unwrap_or_default()
    }

    pub(crate) fn namespace(&self, name: &str) -> Option<&Arc<dyn NamespaceHandler>> {
        self.0.namespaces.get(name)
    }

    /// Counts a new connection from `ip`, or says which cap it would pass.
    pub(crate) fn admit_connection(&self, ip: String) -> Result<Permit, Refusal> {
        let connections = &self.0.connections;
        let max = self.0.config.max_connections;
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
        if *count >= self.0.config.max_connections_per_ip {
            drop(count);
            connections.total.fetch_sub(1, Ordering::AcqRel);
            return Err(Refusal::TooManyFromAddress);
        }
        *count += 1;
        drop(count);
        Ok(Permit {
            connections: connections.clone(),
            ip,
        })
    }

    pub(crate) fn polling_sessions(&self) -> &DashMap<Arc<str>, PollingEntry> {
        &self.0.polling
    }

    /// The Engine.IO open packet's JSON.
    pub(crate) fn open_json(&self, sid: &str, can_upgrade: bool) -> String {
        let upgrades: &[&str] = if can_upgrade { &["websocket"] } else { &[] };
        serde_json::json!({
            "sid": sid,
            "upgrades": upgrades,
            "pingInterval": duration_ms(self.0.config.ping_interval),
            "pingTimeout": duration_ms(self.0.config.ping_timeout),
            "maxPayload": self.0.config.max_payload,
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
