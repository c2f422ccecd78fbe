//! Socket.IO v5 over Engine.IO v4, served by actix-web at `/socket.io/`.
//!
//! An application registers one [`NamespaceHandler`] per namespace on a
//! [`SocketIoServer`], mounts [`scope`] in its `App`, and talks to clients
//! through the [`SocketHandle`] each handler call receives:
//!
//! ```ignore
//! let server = SocketIoServer::builder(SocketIoConfig::default())
//!     .namespace("/", Chat)
//!     .build(); // inside the actix System: starts the hub
//! HttpServer::new(move || App::new().service(realtime::scope(server.clone())))
//! ```
//!
//! How the services sit on it:
//! - marketplace chat: `on_connect` checks `auth["token"]` and returns
//!   `Err(message)` to refuse (the client gets `44{"message":…}`), else
//!   `socket.set_data(user)` and `socket.join(format!("user:{id}"))`; a
//!   `Conversation` actor then reaches a user with
//!   `server.emit_to_room("/", "user:…", "new_message", &msg)`.
//! - interview: `on_connect` accepts everyone; `on_event` for
//!   `join_session {session_token}` looks the session up, joins room
//!   `session:{id}` and tells the `InterviewSession` actor, which emits to
//!   that room the same way.
//!
//! Rooms and presence live in the [`Hub`] actor. Each connection is one
//! actor (polling session or WebSocket) with no thread of its own; packets
//! sent to a room are encoded once and shared by reference count.

mod adapter;
mod config;
mod conn;
pub mod echo;
pub mod engineio;
mod heartbeat;
pub mod hub;
mod pacing;
mod polling;
mod rooms;
mod routes;
mod server;
mod shared;
mod socket;
pub mod socketio;
mod ws;

pub use adapter::{RedisAdapterConfig, Target};
pub use config::SocketIoConfig;
pub use hub::Hub;
pub use pacing::activations as coalescing_activations;
pub use routes::scope;
pub use server::{SocketIoServer, SocketIoServerBuilder};
pub use socket::{AckSender, DisconnectReason, Event, NamespaceHandler, SocketHandle};
pub use socketio::{placeholder, placeholder_index, EncodeError};
