//! The hub: which sockets are connected, which rooms they are in, and
//! fan-out of one encoded packet to a room.
//!
//! One actor owns all of it so membership changes and broadcasts are
//! ordered without locks. Rooms belong to a namespace, as in Socket.IO.
//! Socket handles reach it through the `Rooms` port on its address.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use actix::{Actor, Addr, Context, Handler, Message, MessageResult};

use super::rooms::Rooms;
use super::socket::SocketHandle;
use super::socketio::Frame;

#[derive(Default)]
pub struct Hub {
    sockets: HashMap<Arc<str>, Member>,
    rooms: HashMap<(Arc<str>, String), HashSet<Arc<str>>>,
}

struct Member {
    handle: SocketHandle,
    rooms: Vec<String>,
}

impl Actor for Hub {
    type Context = Context<Self>;
}

/// A socket started joining a namespace. Sent before the application's
/// `on_connect` runs, so joins made there find the socket.
#[derive(Message)]
#[rtype(result = "()")]
pub(crate) struct Register {
    pub handle: SocketHandle,
}

/// The socket left its namespace: forget it and take it out of every room.
#[derive(Message)]
#[rtype(result = "()")]
pub(crate) struct Unregister {
    pub sid: Arc<str>,
}

#[derive(Message)]
#[rtype(result = "()")]
pub(crate) struct Join {
    pub sid: Arc<str>,
    pub room: String,
}

#[derive(Message)]
#[rtype(result = "()")]
pub(crate) struct Leave {
    pub sid: Arc<str>,
    pub room: String,
}

/// Sends one pre-encoded packet to every socket of `room` in `nsp`.
#[derive(Message)]
#[rtype(result = "()")]
pub struct EmitToRoom {
    pub nsp: Arc<str>,
    pub room: String,
    pub frame: Frame,
    /// Usually the sender, for "everyone else in the room".
    pub except: Option<Arc<str>>,
}

/// Handles of the sockets in a room (empty if the room does not exist).
#[derive(Message)]
#[rtype(result = "Vec<SocketHandle>")]
pub struct RoomMembers {
    pub nsp: Arc<str>,
    pub room: String,
}

/// How many sockets are connected, over all namespaces.
#[derive(Message)]
#[rtype(result = "usize")]
pub struct SocketCount;

impl Handler<Register> for Hub {
    type Result = ();
    fn handle(&mut self, msg: Register, _: &mut Context<Self>) {
        self.sockets.insert(
            msg.handle.id_arc().clone(),
            Member {
                handle: msg.handle,
                rooms: Vec::new(),
            },
        );
    }
}

impl Handler<Unregister> for Hub {
    type Result = ();
    fn handle(&mut self, msg: Unregister, _: &mut Context<Self>) {
        let Some(member) = self.sockets.remove(&msg.sid) else {
            return;
        };
        let nsp = member.handle.namespace_arc().clone();
        for room in member.rooms {
            self.remove_from_room(&nsp, room, &msg.sid);
        }
    }
}

impl Handler<Join> for Hub {
    type Result = ();
    fn handle(&mut self, msg: Join, _: &mut Context<Self>) {
        // Joins from a socket that already left are dropped, so rooms never
        // hold sockets the hub no longer knows.
        let Some(member) = self.sockets.get_mut(&msg.sid) else {
            return;
        };
        if member.rooms.contains(&msg.room) {
            return;
        }
        member.rooms.push(msg.room.clone());
        let key = (member.handle.namespace_arc().clone(), msg.room);
        self.rooms.entry(key).or_default().insert(msg.sid);
    }
}

impl Handler<Leave> for Hub {
    type Result = ();
    fn handle(&mut self, msg: Leave, _: &mut Context<Self>) {
        let Some(member) = self.sockets.get_mut(&msg.sid) else {
            return;
        };
        let Some(pos) = member.rooms.iter().position(|r| *r == msg.room) else {
            return;
        };
        member.rooms.swap_remove(pos);
        let nsp = member.handle.namespace_arc().clone();
        self.remove_from_room(&nsp, msg.room, &msg.sid);
    }
}

impl Handler<EmitToRoom> for Hub {
    type Result = ();
    fn handle(&mut self, msg: EmitToRoom, _: &mut Context<Self>) {
        let Some(members) = self.rooms.get(&(msg.nsp, msg.room)) else {
            return;
        };
        for sid in members {
            if msg.except.as_ref() == Some(sid) {
                continue;
            }
            if let Some(member) = self.sockets.get(sid) {
                member.handle.send_frame(msg.frame.clone());
            }
        }
    }
}

impl Handler<RoomMembers> for Hub {
    type Result = MessageResult<RoomMembers>;
    fn handle(&mut self, msg: RoomMembers, _: &mut Context<Self>) -> Self::Result {
        let handles = self
            .rooms
            .get(&(msg.nsp, msg.room))
            .into_iter()
            .flatten()
            .filter_map(|sid| self.sockets.get(sid).map(|m| m.handle.clone()))
            .collect();
        MessageResult(handles)
    }
}

impl Handler<SocketCount> for Hub {
    type Result = usize;
    fn handle(&mut self, _: SocketCount, _: &mut Context<Self>) -> usize {
        self.sockets.len()
    }
}

impl Hub {
    fn remove_from_room(&mut self, nsp: &Arc<str>, room: String, sid: &Arc<str>) {
        let key = (nsp.clone(), room);
        if let Some(set) = self.rooms.get_mut(&key) {
            set.remove(sid);
            if set.is_empty() {
                self.rooms.remove(&key);
            }
        }
    }
}

impl Rooms for Addr<Hub> {
    fn join(&self, sid: Arc<str>, room: String) {
        self.do_send(Join { sid, room });
    }

    fn leave(&self, sid: Arc<str>, room: String) {
        self.do_send(Leave { sid, room });
    }

    fn emit(&self, nsp: Arc<str>, room: String, frame: Frame, except: Option<Arc<str>>) {
        self.do_send(EmitToRoom {
            nsp,
            room,
            frame,
            except,
        });
    }

    fn unregister(&self, sid: Arc<str>) {
        self.do_send(Unregister { sid });
    }
}
