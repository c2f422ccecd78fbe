//! What a socket asks of the hub: to join or leave a room, to emit to one, to be forgotten.
//! A socket handle reaches the hub through this port, which the hub implements on its
//! address, so the handle and the hub that keeps handles each read without the other.
//! [`Fleet`] is the hub's own port to the other nodes (the Redis adapter implements it), so
//! the adapter, which delivers to the hub, and the hub each read without the other.

use std::sync::Arc;

use super::socketio::Frame;

pub(crate) trait Rooms: Send + Sync + 'static {
    fn join(&self, sid: Arc<str>, room: String);
    fn leave(&self, sid: Arc<str>, room: String);
    /// Sends one pre-encoded packet to every socket of `room` in `nsp` but `except`.
    fn emit(&self, nsp: Arc<str>, room: String, frame: Frame, except: Option<Arc<str>>);
    /// The socket left its namespace: out of every room.
    fn unregister(&self, sid: Arc<str>);
}

/// Who a broadcast reaches: sockets in any of `rooms` (every socket when empty) but those in
/// any `except` room. A socket id counts as a room holding that socket.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Target {
    pub rooms: Vec<String>,
    pub except: Vec<String>,
}

/// The other nodes of the fleet, as the hub reaches them.
pub(crate) trait Fleet: Send + Sync + 'static {
    /// Sends a broadcast made on this node to the other nodes.
    fn publish(&self, nsp: Arc<str>, target: Target, frame: Frame);
}
