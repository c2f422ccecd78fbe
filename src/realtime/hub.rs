//! The hub: which sockets are connected, which rooms they are in, and
//! fan-out of one encoded packet to a room.
//!
//! One actor owns all of it so membership changes and broadcasts are
//! ordered without locks. Rooms belong to a namespace, as in Socket.IO.
//! Socket handles reach it through the `Rooms` port on its address.
//!
//! With a Redis adapter, broadcasts made here also go to the other nodes and theirs arrive
//! as [`Broadcast`]s; every socket is then also addressable as the room named by its id.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use actix::{Actor, Addr, Context, Handler, Message, MessageResult};

use super::rooms::Rooms;
use super::rooms::{Fleet, Target};
use super::socket::SocketHandle;
use super::socketio::Frame;

#[derive(Default)]
pub struct Hub {
    sockets: HashMap<Arc<str>, Member>,
    rooms: HashMap<(Arc<str>, String), HashSet<Arc<str>>>,
    /// The other nodes, when rooms span a cluster.
    adapter: Option<Arc<dyn Fleet>>,
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

/// Sends one pre-encoded packet to the sockets `target` selects in `nsp`; answers how
/// many got it. `publish` also sends it to the other nodes (false for what came from them).
#[derive(Message)]
#[rtype(result = "usize")]
pub struct Broadcast {
    pub nsp: Arc<str>,
    pub target: Target,
    pub frame: Frame,
    pub publish: bool,
}

/// A socket as another node's `fetchSockets` sees it.
#[derive(Debug, Clone)]
pub(crate) struct SocketInfo {
    pub sid: Arc<str>,
    /// Its own id first, then the rooms it joined.
    pub rooms: Vec<String>,
}

/// The sockets `target` selects in `nsp`.
#[derive(Message)]
#[rtype(result = "Vec<SocketInfo>")]
pub(crate) struct Select {
    pub nsp: Arc<str>,
    pub target: Target,
}

/// Every room of `nsp` with a socket in it, socket ids included.
#[derive(Message)]
#[rtype(result = "Vec<String>")]
pub(crate) struct AllRooms {
    pub nsp: Arc<str>,
}

/// What another node asks of the sockets `target` selects here.
#[derive(Message)]
#[rtype(result = "()")]
pub(crate) struct Apply {
    pub nsp: Arc<str>,
    pub target: Target,
    pub action: Action,
}

pub(crate) enum Action {
    Join(Vec<String>),
    Leave(Vec<String>),
    /// Out of the namespace; `close` closes the whole connection.
    Disconnect {
        close: bool,
    },
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
        let key = (msg.nsp, msg.room);
        let except = msg.except;
        let deliver = |member: &Member, sid: &Arc<str>| {
            if except.as_ref() != Some(sid) {
                member.handle.send_frame(msg.frame.clone());
            }
        };
        match self.rooms.get(&key) {
            Some(members) => {
                for sid in members {
                    if let Some(member) = self.sockets.get(sid) {
                        deliver(member, sid);
                    }
                }
            }
            // No such room: it may name a socket, which is in the room of its own id.
            None => {
                if let Some((sid, member)) = self.sockets.get_key_value(&*key.1) {
                    if *member.handle.namespace_arc() == key.0 {
                        deliver(member, sid);
                    }
                }
            }
        }
        if let Some(adapter) = &self.adapter {
            let (nsp, room) = key;
            let target = Target {
                rooms: vec![room],
                except: except.map(|s| vec![s.to_string()]).unwrap_or_default(),
            };
            adapter.publish(nsp, target, msg.frame);
        }
    }
}

impl Handler<Broadcast> for Hub {
    type Result = usize;
    fn handle(&mut self, msg: Broadcast, _: &mut Context<Self>) -> usize {
        let selected = self.select(&msg.nsp, &msg.target);
        for sid in &selected {
            if let Some(member) = self.sockets.get(*sid) {
                member.handle.send_frame(msg.frame.clone());
            }
        }
        let count = selected.len();
        if msg.publish {
            if let Some(adapter) = &self.adapter {
                adapter.publish(msg.nsp, msg.target, msg.frame);
            }
        }
        count
    }
}

impl Handler<Select> for Hub {
    type Result = MessageResult<Select>;
    fn handle(&mut self, msg: Select, _: &mut Context<Self>) -> Self::Result {
        let infos = self
            .select(&msg.nsp, &msg.target)
            .into_iter()
            .filter_map(|sid| {
                let member = self.sockets.get(sid)?;
                let mut rooms = Vec::with_capacity(member.rooms.len() + 1);
                rooms.push(sid.to_string());
                rooms.extend(member.rooms.iter().cloned());
                Some(SocketInfo {
                    sid: sid.clone(),
                    rooms,
                })
            })
            .collect();
        MessageResult(infos)
    }
}

impl Handler<AllRooms> for Hub {
    type Result = MessageResult<AllRooms>;
    fn handle(&mut self, msg: AllRooms, _: &mut Context<Self>) -> Self::Result {
        let rooms = self
            .rooms
            .keys()
            .filter(|(nsp, _)| *nsp == msg.nsp)
            .map(|(_, r)| r.clone());
        let sids = self
            .sockets
            .iter()
            .filter(|(_, m)| *m.handle.namespace_arc() == msg.nsp)
            .map(|(sid, _)| sid.to_string());
        MessageResult(rooms.chain(sids).collect())
    }
}

impl Handler<Apply> for Hub {
    type Result = ();
    fn handle(&mut self, msg: Apply, ctx: &mut Context<Self>) {
        let selected: Vec<Arc<str>> = self
            .select(&msg.nsp, &msg.target)
            .into_iter()
            .cloned()
            .collect();
        for sid in selected {
            match &msg.action {
                Action::Join(rooms) => {
                    for room in rooms {
                        let join = Join {
                            sid: sid.clone(),
                            room: room.clone(),
                        };
                        <Self as Handler<Join>>::handle(self, join, ctx);
                    }
                }
                Action::Leave(rooms) => {
                    for room in rooms {
                        let leave = Leave {
                            sid: sid.clone(),
                            room: room.clone(),
                        };
                        <Self as Handler<Leave>>::handle(self, leave, ctx);
                    }
                }
                Action::Disconnect { close } => {
                    if let Some(member) = self.sockets.get(&sid) {
                        if *close {
                            member.handle.close();
                        } else {
                            member.handle.disconnect();
                        }
                    }
                }
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
    pub(crate) fn new(adapter: Option<Arc<dyn Fleet>>) -> Self {
        Self {
            adapter,
            ..Self::default()
        }
    }

    /// The sockets of `nsp` in any of the target's rooms (all of them when it names none),
    /// less those in any of its `except` rooms; a socket id is a room of that socket.
    fn select(&self, nsp: &Arc<str>, target: &Target) -> Vec<&Arc<str>> {
        let mut selected: HashSet<&Arc<str>> = HashSet::new();
        if target.rooms.is_empty() {
            selected.extend(
                self.sockets
                    .iter()
                    .filter(|(_, m)| m.handle.namespace_arc() == nsp)
                    .map(|(sid, _)| sid),
            );
        } else {
            for room in &target.rooms {
                self.room_members(nsp, room, &mut selected);
            }
        }
        if !target.except.is_empty() {
            let mut excluded = HashSet::new();
            for room in &target.except {
                self.room_members(nsp, room, &mut excluded);
            }
            selected.retain(|sid| !excluded.contains(sid));
        }
        selected.into_iter().collect()
    }

    fn room_members<'a>(&'a self, nsp: &Arc<str>, room: &str, into: &mut HashSet<&'a Arc<str>>) {
        if let Some(members) = self.rooms.get(&(nsp.clone(), room.to_owned())) {
            into.extend(members);
        }
        if let Some((sid, member)) = self.sockets.get_key_value(room) {
            if member.handle.namespace_arc() == nsp {
                into.insert(sid);
            }
        }
    }

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
