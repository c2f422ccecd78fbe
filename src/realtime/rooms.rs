//! What a socket asks of the hub: to join or leave a room, to emit to one, to be forgotten.
//! A socket handle reaches the hub through this port, which the hub implements on its
//! address, so the handle and the hub that keeps handles each read without the other.

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
