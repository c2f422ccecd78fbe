//! The server object an application builds once: namespaces with their
//! handlers, settings, the hub, and the live long-polling sessions.

use std::collections::HashMap;
use std::sync::Arc;

use actix::{Actor, Addr};
use dashmap::DashMap;
use serde::Serialize;

use super::config::SocketIoConfig;
use super::hub::{self, Hub};
use super::polling::PollingSession;
use super::socket::{NamespaceHandler, SocketHandle};
use super::socketio::{self, EncodeError};

/// Cheap to clone; every clone is the same server.
#[derive(Clone)]
pub struct SocketIoServer(Arc<Inner>);

struct Inner {
    config: SocketIoConfig,
    namespaces: HashMap<String, Arc<dyn NamespaceHandler>>,
    hub: Addr<Hub>,
    polling: DashMap<Arc<str>, Addr<PollingSession>>,
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

    pub(crate) fn polling_sessions(&self) -> &DashMap<Arc<str>, Addr<PollingSession>> {
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
