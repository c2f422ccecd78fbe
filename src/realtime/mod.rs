//! Socket.IO v5 over Engine.IO v4, served by actix-web at `/socket.io/`.
//!
//! An application registers one [`NamespaceHandler`] per namespace on a
//! [`SocketIoServer`], mounts [`scope`] in its `App`, and talks to clients
//! through the [`SocketHandle`] each handler call receives:
//!
//! ```ignore
//! let server = SocketIoServer::builder(SocketIoConfig::default())
//!     .namespace("/", Chat)
//!     .build();
//! HttpServer::new(move || App::new().service(realtime::scope(server.clone())))
//! ```
//!
//! Rooms and presence live in the [`Hub`] actor; `server.emit_to_room`
//! reaches every socket in a room from anywhere (e.g. another actor).

mod config;
mod conn;
pub mod echo;
pub mod engineio;
mod heartbeat;
pub mod hub;
mod polling;
mod routes;
mod server;
mod socket;
pub mod socketio;
mod ws;

pub use config::SocketIoConfig;
pub use hub::Hub;
pub use routes::scope;
pub use server::{SocketIoServer, SocketIoServerBuilder};
pub use socket::{AckSender, DisconnectReason, Event, NamespaceHandler, SocketHandle};
pub use socketio::{placeholder, placeholder_index, EncodeError};
