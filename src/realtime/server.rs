//! The server object an application builds once: its namespaces with their handlers and
//! settings (held for every connection in `shared`), the hub, and the live long-polling
//! sessions; and what the application asks of it (emit to a room, room members, counts).

use std::collections::HashMap;
use std::sync::Arc;

use actix::{Actor, Addr};
use serde::Serialize;

use super::adapter::{Adapter, RedisAdapterConfig, Target};
use super::config::SocketIoConfig;
use super::hub::{self, Hub};
use super::polling::PollingSessions;
use super::shared::Shared;
use super::socket::{NamespaceHandler, SocketHandle};
use super::socketio::{self, EncodeError};

/// Cheap to clone; every clone is the same server.
#[derive(Clone)]
pub struct SocketIoServer(Arc<Inner>);

struct Inner {
    shared: Arc<Shared>,
    polling: PollingSessions,
}

/// Collects namespaces before the server starts.
pub struct SocketIoServerBuilder {
    config: SocketIoConfig,
    namespaces: HashMap<String, Arc<dyn NamespaceHandler>>,
    redis: Option<RedisAdapterConfig>,
}

impl SocketIoServerBuilder {
    /// Rooms span every node (and Node socket.io server) on this Redis and key; `None`
    /// keeps them on this node.
    pub fn redis_adapter(mut self, config: Option<RedisAdapterConfig>) -> Self {
        self.redis = config;
        self
    }

    /// Registers the handler for namespace `name` (`"/"` is the main one).
    pub fn namespace(mut self, name: &str, handler: impl NamespaceHandler) -> Self {
        self.namespaces.insert(name.to_owned(), Arc::new(handler));
        self
    }

    /// Starts the hub actor; call from inside an actix `System`
    /// (e.g. under `#[actix_web::main]`).
    pub fn build(self) -> SocketIoServer {
        let (adapter, starter) = match self.redis {
            Some(config) => {
                let (adapter, starter) = Adapter::new(config, self.namespaces.keys());
                (Some(adapter), Some(starter))
            }
            None => (None, None),
        };
        let fleet = adapter.clone().map(|a| a as Arc<dyn super::rooms::Fleet>);
        let hub = Hub::new(fleet).start();
        if let Some(starter) = starter {
            starter.start(hub.clone());
        }
        SocketIoServer(Arc::new(Inner {
            shared: Arc::new(Shared::new(self.config, self.namespaces, hub, adapter)),
            polling: PollingSessions::default(),
        }))
    }
}

impl SocketIoServer {
    pub fn builder(config: SocketIoConfig) -> SocketIoServerBuilder {
        SocketIoServerBuilder {
            config,
            namespaces: HashMap::new(),
            redis: None,
        }
    }

    pub fn config(&self) -> &SocketIoConfig {
        self.0.shared.config()
    }

    /// The hub, for presence queries ([`hub::RoomMembers`], [`hub::SocketCount`]).
    pub fn hub(&self) -> &Addr<Hub> {
        self.0.shared.hub()
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
        self.hub().do_send(hub::EmitToRoom {
            nsp: Arc::from(nsp),
            room: room.to_owned(),
            frame,
            except: None,
        });
        Ok(())
    }

    /// Emits `event` with one argument to the sockets `target` selects in `nsp` (every
    /// socket of it when it names no room), on every node.
    pub fn emit_to<T: Serialize + ?Sized>(
        &self,
        nsp: &str,
        target: Target,
        event: &str,
        data: &T,
    ) -> Result<(), EncodeError> {
        let frame = socketio::event_frame_one(nsp, event, data)?;
        self.hub().do_send(hub::Broadcast {
            nsp: Arc::from(nsp),
            target,
            frame,
            publish: true,
        });
        Ok(())
    }

    /// The sockets currently in `room` of `nsp`.
    pub async fn room_members(&self, nsp: &str, room: &str) -> Vec<SocketHandle> {
        self.hub()
            .send(hub::RoomMembers {
                nsp: Arc::from(nsp),
                room: room.to_owned(),
            })
            .await
            .unwrap_or_default()
    }

    /// How many sockets are connected, over all namespaces.
    pub async fn socket_count(&self) -> usize {
        self.hub().send(hub::SocketCount).await.unwrap_or_default()
    }

    /// What every connection of this server reads.
    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.0.shared
    }

    pub(crate) fn polling_sessions(&self) -> &PollingSessions {
        &self.0.polling
    }
}
