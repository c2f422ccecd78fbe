//! Socket.IO state of one Engine.IO connection, independent of transport:
//! joined namespaces, attachment reassembly, dispatch to handlers.
//!
//! The transport actor owns a `Conn`, feeds it what the client sent and the
//! commands it received, and writes what the `Conn` pushes to its `Outbox`.
//! On upgrade the `Conn` moves from the polling actor to the WebSocket one.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use actix::Recipient;
use actix_web::web::Bytes;
use serde_json::Value;

use super::adapter;
use super::engineio::OutPacket;
use super::hub;
use super::shared::{random_id, Permit, Shared};
use super::socket::{
    run_inline, send_command, AckSender, Command, ConnTarget, DisconnectReason, Event,
    NamespaceHandler, SocketHandle, TargetInner,
};
use super::socketio::{self, Frame, PacketKind, ParseError};

/// Where a `Conn` writes packets for the client.
pub(crate) trait Outbox {
    fn push(&mut self, packet: OutPacket);

    fn push_frame(&mut self, frame: Frame) {
        crate::core::metrics::socket_packet(false);
        self.push(OutPacket::Text(frame.text));
        for bin in frame.attachments {
            self.push(OutPacket::Binary(bin));
        }
    }

    /// What is pushed from here on leaves in a later write than what was
    /// pushed before, where the transport has writes of its own (WebSocket).
    fn write_apart(&mut self) {}
}

/// The client broke the protocol; its connection is closed.
#[derive(Debug)]
pub(crate) enum ProtocolError {
    Parse(ParseError),
    UnexpectedText,
    UnexpectedBinary,
    UnexpectedPacket,
    AttachmentsTooLarge,
}

impl std::fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProtocolError::Parse(e) => write!(f, "{e}"),
            ProtocolError::UnexpectedText => f.write_str("text packet while awaiting attachments"),
            ProtocolError::UnexpectedBinary => f.write_str("binary packet without a binary header"),
            ProtocolError::UnexpectedPacket => f.write_str("packet not allowed from a client"),
            ProtocolError::AttachmentsTooLarge => f.write_str("attachments exceed their budget"),
        }
    }
}

/// What the transport should do after a command.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    Continue,
    Close,
}

pub(crate) struct Conn {
    shared: Arc<Shared>,
    target: ConnTarget,
    // Usually one or two entries, so a Vec beats a map in size and speed.
    sockets: Vec<NspSocket>,
    partial: Option<Partial>,
    joined: bool,
    /// Event handlers started and not finished (spawned ones included).
    in_flight: Arc<AtomicUsize>,
    /// When the client got its handshake.
    opened: tokio::time::Instant,
    /// Counts this connection against the caps until the `Conn` is dropped.
    _permit: Permit,
}

/// One running event handler; counted down when its future ends or is dropped.
struct InFlight(Arc<AtomicUsize>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

struct NspSocket {
    handle: SocketHandle,
    handler: Arc<dyn NamespaceHandler>,
    /// Packets emitted while `on_connect` still runs; `None` once connected.
    pending: Option<Vec<Frame>>,
}

/// A binary packet whose attachments are still arriving.
struct Partial {
    packet: socketio::Packet,
    attachments: Vec<Bytes>,
    bytes: usize,
}

/// All attachments of one packet together may be this many times maxPayload.
const ATTACHMENT_BUDGET_FACTOR: usize = 10;

impl Conn {
    pub(crate) fn new(
        shared: Arc<Shared>,
        recipient: Recipient<Command>,
        permit: Permit,
        opened: tokio::time::Instant,
    ) -> Self {
        let max_queue = shared.config().max_outbound_queue;
        Self {
            shared,
            target: TargetInner::new(recipient, max_queue),
            sockets: Vec::new(),
            partial: None,
            joined: false,
            in_flight: Arc::default(),
            opened,
            _permit: permit,
        }
    }

    /// Whether commands for the client were dropped because it is too slow.
    pub(crate) fn overflowed(&self) -> bool {
        self.target.overflowed()
    }

    /// Whether a handler admitted this connection.
    pub(crate) fn admitted(&self) -> bool {
        self.target.admitted()
    }

    pub(crate) fn opened(&self) -> tokio::time::Instant {
        self.opened
    }

    /// Points every handle of this connection at a new transport actor.
    pub(crate) fn retarget(&self, recipient: Recipient<Command>) {
        self.target.retarget(recipient);
    }

    /// Whether the client has asked to join a namespace yet.
    pub(crate) fn has_joined(&self) -> bool {
        self.joined
    }

    /// An Engine.IO message packet's text. `Flow::Close` when a handler
    /// that ran at once closed the connection.
    pub(crate) fn on_text(
        &mut self,
        text: &str,
        out: &mut impl Outbox,
    ) -> Result<Flow, ProtocolError> {
        if self.partial.is_some() {
            return Err(ProtocolError::UnexpectedText);
        }
        let packet = socketio::decode(text).map_err(ProtocolError::Parse)?;
        crate::core::metrics::socket_packet(true);
        match packet.kind {
            PacketKind::Connect => self.connect(packet, out),
            PacketKind::Disconnect => {
                self.leave(&packet.nsp, DisconnectReason::ClientNamespaceDisconnect);
            }
            PacketKind::Event | PacketKind::Ack => {
                return Ok(self.dispatch(packet, Vec::new(), out));
            }
            PacketKind::BinaryEvent | PacketKind::BinaryAck => {
                if packet.attachments == 0 {
                    return Ok(self.dispatch(packet, Vec::new(), out));
                } else {
                    let attachments = Vec::with_capacity(packet.attachments);
                    self.partial = Some(Partial {
                        packet,
                        attachments,
                        bytes: 0,
                    });
                }
            }
            _ => return Err(ProtocolError::UnexpectedPacket),
        }
        Ok(Flow::Continue)
    }

    /// An Engine.IO binary packet: the next attachment of a binary packet.
    pub(crate) fn on_binary(
        &mut self,
        data: Bytes,
        out: &mut impl Outbox,
    ) -> Result<Flow, ProtocolError> {
        // Each attachment is within maxPayload, but a header may announce
        // many; bound what one packet may make the server hold.
        let limit = self
            .shared
            .config()
            .max_payload
            .saturating_mul(ATTACHMENT_BUDGET_FACTOR);
        let partial = self
            .partial
            .as_mut()
            .ok_or(ProtocolError::UnexpectedBinary)?;
        partial.bytes += data.len();
        if partial.bytes > limit {
            return Err(ProtocolError::AttachmentsTooLarge);
        }
        partial.attachments.push(data);
        if partial.attachments.len() == partial.packet.attachments {
            if let Some(done) = self.partial.take() {
                return Ok(self.dispatch(done.packet, done.attachments, out));
            }
        }
        Ok(Flow::Continue)
    }

    /// A command that came through the transport actor's mailbox.
    pub(crate) fn on_command(&mut self, cmd: Command, out: &mut impl Outbox) -> Flow {
        self.target.mailbox_command_handled();
        self.apply(cmd, out)
    }

    fn apply(&mut self, cmd: Command, out: &mut impl Outbox) -> Flow {
        match cmd {
            Command::Frame { nsp, frame } => {
                if let Some(s) = self.find_mut(&nsp) {
                    match &mut s.pending {
                        Some(buffer) => buffer.push(frame),
                        None => out.push_frame(frame),
                    }
                }
            }
            Command::ConnectResult { nsp, result } => self.connect_result(&nsp, result, out),
            Command::Disconnect { nsp } => {
                if self.find_mut(&nsp).is_some_and(|s| s.pending.is_none()) {
                    out.push_frame(socketio::disconnect_frame(&nsp));
                    self.leave(&nsp, DisconnectReason::ServerNamespaceDisconnect);
                }
            }
            Command::Close => {
                // Tell the client each namespace was closed on purpose so
                // it does not reconnect.
                for s in &self.sockets {
                    if s.pending.is_none() {
                        out.push_frame(socketio::disconnect_frame(s.handle.namespace()));
                    }
                }
                return Flow::Close;
            }
        }
        Flow::Continue
    }

    /// The connection is gone: every socket leaves its namespace.
    pub(crate) fn shutdown(&mut self, reason: DisconnectReason) {
        for s in std::mem::take(&mut self.sockets) {
            Self::forget(s, reason);
        }
        self.partial = None;
    }

    fn find_mut(&mut self, nsp: &str) -> Option<&mut NspSocket> {
        self.sockets
            .iter_mut()
            .find(|s| s.handle.namespace() == nsp)
    }

    fn connect(&mut self, packet: socketio::Packet, out: &mut impl Outbox) {
        let Some(handler) = self.shared.namespace(&packet.nsp).cloned() else {
            out.push_frame(socketio::connect_error_frame(
                &packet.nsp,
                "Invalid namespace",
            ));
            return;
        };
        self.joined = true;
        if self.find_mut(&packet.nsp).is_some() {
            // Already joined (or joining); a repeated CONNECT changes nothing.
            return;
        }
        let nsp: Arc<str> = Arc::from(packet.nsp);
        let rooms = self.shared.rooms().clone();
        let handle = SocketHandle::new(random_id(), nsp.clone(), self.target.clone(), rooms);
        // Registered before on_connect runs so rooms joined there stick.
        self.shared.hub().do_send(hub::Register {
            handle: handle.clone(),
        });
        self.sockets.push(NspSocket {
            handle: handle.clone(),
            handler: handler.clone(),
            pending: Some(Vec::new()),
        });
        let auth = packet
            .data
            .unwrap_or_else(|| Value::Object(Default::default()));
        let target = self.target.clone();
        actix::spawn(async move {
            let result = handler.on_connect(handle, auth).await;
            send_command(&target, Command::ConnectResult { nsp, result });
        });
    }

    fn connect_result(&mut self, nsp: &str, result: Result<(), String>, out: &mut impl Outbox) {
        let Some(pos) = self
            .sockets
            .iter()
            .position(|s| s.handle.namespace() == nsp)
        else {
            return; // the client left before on_connect finished
        };
        match result {
            Ok(()) => {
                let s = &mut self.sockets[pos];
                out.push_frame(socketio::connect_frame(nsp, s.handle.id()));
                let pending = s.pending.take().unwrap_or_default();
                // The CONNECT answer alone first, as the reference server sends it
                // before its connection handler runs.
                if !pending.is_empty() {
                    out.write_apart();
                }
                for frame in pending {
                    out.push_frame(frame);
                }
            }
            Err(message) => {
                let s = self.sockets.swap_remove(pos);
                out.push_frame(socketio::connect_error_frame(nsp, &message));
                s.handle.rooms().unregister(s.handle.id_arc().clone());
            }
        }
    }

    fn leave(&mut self, nsp: &str, reason: DisconnectReason) {
        if let Some(pos) = self
            .sockets
            .iter()
            .position(|s| s.handle.namespace() == nsp)
        {
            let s = self.sockets.swap_remove(pos);
            Self::forget(s, reason);
        }
    }

    fn forget(s: NspSocket, reason: DisconnectReason) {
        s.handle.rooms().unregister(s.handle.id_arc().clone());
        // A socket whose on_connect never succeeded was never connected.
        if s.pending.is_none() {
            let (handler, handle) = (s.handler, s.handle);
            actix::spawn(async move { handler.on_disconnect(handle, reason).await });
        }
    }

    fn dispatch(
        &mut self,
        packet: socketio::Packet,
        attachments: Vec<Bytes>,
        out: &mut impl Outbox,
    ) -> Flow {
        // The only server emits with callbacks are other nodes' broadcasts with acks
        // (the adapter); packets for namespaces the socket has not joined are ignored, as
        // Socket.IO does.
        if !matches!(packet.kind, PacketKind::Event | PacketKind::BinaryEvent) {
            if let (Some(adapter), Some(id)) = (self.shared.adapter(), packet.id) {
                if let Some(s) = self
                    .sockets
                    .iter()
                    .find(|s| s.handle.namespace() == packet.nsp)
                {
                    let arg = adapter::ack_arg(packet.data, &attachments);
                    adapter.client_ack(s.handle.id_arc(), id, arg);
                }
            }
            return Flow::Continue;
        }
        let max_in_flight = self.shared.config().max_handlers_in_flight;
        let in_flight = self.in_flight.clone();
        let Some(s) = self.find_mut(&packet.nsp).filter(|s| s.pending.is_none()) else {
            return Flow::Continue;
        };
        if in_flight.load(Ordering::Acquire) >= max_in_flight {
            // The client sends faster than its handlers finish; queueing
            // more would let it hold unbounded work on the server.
            tracing::debug!(max_in_flight, "too many event handlers in flight; closing");
            return Flow::Close;
        }
        in_flight.fetch_add(1, Ordering::AcqRel);
        let guard = InFlight(in_flight);
        // decode() guarantees a non-empty array starting with a string.
        let Some(Value::Array(mut items)) = packet.data else {
            return Flow::Continue;
        };
        let Value::String(name) = items.remove(0) else {
            return Flow::Continue;
        };
        let handle = s.handle.clone();
        let event = Event {
            name,
            args: items,
            attachments,
            ack: packet.id.map(|id| AckSender::new(handle.clone(), id)),
        };
        let handler = s.handler.clone();
        let commands = run_inline(
            &self.target,
            Box::pin(async move {
                let _guard = guard;
                handler.on_event(handle, event).await
            }),
        );
        for cmd in commands {
            if self.apply(cmd, out) == Flow::Close {
                return Flow::Close;
            }
        }
        Flow::Continue
    }
}
