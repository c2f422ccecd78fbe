//! WebSocket transport: one actor per socket, either opened directly or
//! upgraded from a long-polling session.

use actix::{
    Actor, ActorContext, ActorFutureExt, Addr, AsyncContext, Handler, StreamHandler, WrapFuture,
};
use actix_http::ws::Item;
use actix_web::web::{Bytes, BytesMut};
use actix_web_actors::ws::{self, CloseCode, CloseReason, WebsocketContext};
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::conn::{Conn, Flow, Outbox, ProtocolError};
use super::engineio::{self, OutPacket, Packet};
use super::heartbeat::{self, EngineActor, Heartbeat};
use super::pacing;
use super::polling::{PollingSession, ProbeAborted, ProbeStarted, Upgrade, UpgradeClaim};
use super::shared::{random_id, Permit, Shared};
use super::socket::{Command, DisconnectReason};

pub(crate) struct WsSession {
    shared: Arc<Shared>,
    /// `None` while probing an upgrade, until the polling session hands over.
    conn: Option<Conn>,
    /// The polling session being upgraded, if this socket came to upgrade one.
    upgrade_from: Option<Addr<PollingSession>>,
    /// That session's upgrade, kept from the handshake to the socket's end.
    upgrade_claim: Option<UpgradeClaim>,
    heartbeat: Heartbeat,
    /// A fragmented message being reassembled: (is text, data so far).
    fragments: Option<(bool, BytesMut)>,
    /// A socket opened directly: its place under the caps, until started.
    permit: Option<Permit>,
    /// Packets held back to go out in a later write ([`Outbox::write_apart`]).
    held: Option<Vec<OutPacket>>,
}

/// How long packets after a [`Outbox::write_apart`] wait: long enough for the
/// write before them to leave on its own.
const WRITE_APART: Duration = Duration::from_millis(1);

struct Socket<'a> {
    ctx: &'a mut WebsocketContext<WsSession>,
    held: &'a mut Option<Vec<OutPacket>>,
}

fn socket<'a>(
    ctx: &'a mut WebsocketContext<WsSession>,
    held: &'a mut Option<Vec<OutPacket>>,
) -> Socket<'a> {
    Socket { ctx, held }
}

fn write(ctx: &mut WebsocketContext<WsSession>, packet: OutPacket) {
    match packet {
        OutPacket::Text(text) => ctx.text(text),
        OutPacket::Binary(data) => ctx.binary(data),
    }
}

impl Outbox for Socket<'_> {
    fn push(&mut self, packet: OutPacket) {
        match self.held.as_mut() {
            Some(held) => held.push(packet),
            None => write(self.ctx, packet),
        }
    }

    /// Holds what follows until the next turn of the timer, so the frames
    /// written so far leave in a TCP write of their own. Clients that wait
    /// for one message and only then listen for the next (the protocol test
    /// suite's do, on Node's `ws`) miss a second frame that arrives in the
    /// same read; the reference server's CONNECT answer leaves on its own.
    fn write_apart(&mut self) {
        if self.held.is_some() {
            return;
        }
        *self.held = Some(Vec::new());
        self.ctx
            .run_later(WRITE_APART, |act, ctx| act.release_held(ctx));
    }
}

impl WsSession {
    /// A socket opened directly on WebSocket.
    pub(crate) fn new(shared: Arc<Shared>, permit: Permit) -> Self {
        Self {
            shared,
            conn: None,
            upgrade_from: None,
            upgrade_claim: None,
            heartbeat: Heartbeat::default(),
            fragments: None,
            permit: Some(permit),
            held: None,
        }
    }

    /// A socket that came to upgrade a polling session.
    pub(crate) fn upgrading(
        shared: Arc<Shared>,
        from: Addr<PollingSession>,
        claim: UpgradeClaim,
    ) -> Self {
        Self {
            shared,
            conn: None,
            upgrade_from: Some(from),
            upgrade_claim: Some(claim),
            heartbeat: Heartbeat::default(),
            fragments: None,
            permit: None,
            held: None,
        }
    }

    /// Writes the packets held back by [`Outbox::write_apart`].
    fn release_held(&mut self, ctx: &mut WebsocketContext<Self>) {
        for packet in self.held.take().unwrap_or_default() {
            write(ctx, packet);
        }
    }

    fn on_text(&mut self, text: &str, ctx: &mut WebsocketContext<Self>) {
        let packet = match engineio::decode_text(text) {
            Ok(p) => p,
            Err(e) => {
                tracing::debug!(error = %e, "malformed engine.io packet");
                return self.close(ctx, DisconnectReason::ParseError);
            }
        };
        let Some(conn) = self.conn.as_mut() else {
            return self.on_probe_packet(packet, ctx);
        };
        let result = match packet {
            Packet::Message(text) => conn.on_text(text, &mut socket(ctx, &mut self.held)),
            Packet::Pong(_) => {
                heartbeat::on_pong(self, ctx);
                Ok(Flow::Continue)
            }
            Packet::Ping(data) => {
                socket(ctx, &mut self.held).push(OutPacket::pong(data));
                Ok(Flow::Continue)
            }
            Packet::Close => return self.close(ctx, DisconnectReason::TransportClose),
            Packet::Noop | Packet::Upgrade => Ok(Flow::Continue),
            Packet::Open(_) | Packet::Binary(_) => {
                return self.close(ctx, DisconnectReason::ParseError)
            }
        };
        self.after_input(result, ctx);
    }

    fn on_binary(&mut self, data: Bytes, ctx: &mut WebsocketContext<Self>) {
        let result = match self.conn.as_mut() {
            Some(conn) => conn.on_binary(data, &mut socket(ctx, &mut self.held)),
            None => return self.close(ctx, DisconnectReason::ParseError),
        };
        self.after_input(result, ctx);
    }

    fn after_input(
        &mut self,
        result: Result<Flow, ProtocolError>,
        ctx: &mut WebsocketContext<Self>,
    ) {
        match result {
            Ok(Flow::Continue) => {}
            // A handler that ran at once closed the connection.
            Ok(Flow::Close) => self.close(ctx, DisconnectReason::ServerClose),
            Err(e) => {
                tracing::debug!(error = %e, "socket.io protocol error");
                self.close(ctx, DisconnectReason::ParseError);
            }
        }
    }

    /// Packets before the handover: `2probe` then `5`.
    fn on_probe_packet(&mut self, packet: Packet<'_>, ctx: &mut WebsocketContext<Self>) {
        let Some(polling) = self.upgrade_from.clone() else {
            return self.close(ctx, DisconnectReason::ParseError);
        };
        match packet {
            Packet::Ping("probe") => {
                ctx.text("3probe");
                polling.do_send(ProbeStarted);
            }
            Packet::Upgrade => {
                let upgrade = Upgrade {
                    target: ctx.address().recipient(),
                };
                // wait(): no other frame is handled before the connection arrives.
                ctx.wait(polling.send(upgrade).into_actor(self).map(
                    |result, act, ctx| match result {
                        Ok(Some(handover)) => {
                            if let Some(claim) = &act.upgrade_claim {
                                claim.complete();
                            }
                            act.upgrade_from = None;
                            act.conn = Some(handover.conn);
                            let mut out = socket(ctx, &mut act.held);
                            for packet in handover.queued {
                                out.push(packet);
                            }
                            let config = act.shared.config().clone();
                            heartbeat::start(act, ctx, &config, Instant::now());
                        }
                        _ => act.close(ctx, DisconnectReason::TransportClose),
                    },
                ));
            }
            Packet::Noop => {}
            _ => self.close(ctx, DisconnectReason::ParseError),
        }
    }

    /// Collects continuation frames, bounded by maxPayload.
    fn on_fragment(&mut self, item: Item, ctx: &mut WebsocketContext<Self>) {
        let max = self.shared.config().max_payload;
        let (start, chunk, last) = match item {
            Item::FirstText(b) => (Some(true), b, false),
            Item::FirstBinary(b) => (Some(false), b, false),
            Item::Continue(b) => (None, b, false),
            Item::Last(b) => (None, b, true),
        };
        if let Some(is_text) = start {
            self.fragments = Some((is_text, BytesMut::new()));
        }
        let Some((is_text, buf)) = self.fragments.as_mut() else {
            return self.close(ctx, DisconnectReason::ParseError);
        };
        if buf.len() + chunk.len() > max {
            return self.close(ctx, DisconnectReason::ParseError);
        }
        buf.extend_from_slice(&chunk);
        let is_text = *is_text;
        if last {
            let Some((_, buf)) = self.fragments.take() else {
                return;
            };
            let data = buf.freeze();
            if is_text {
                match std::str::from_utf8(&data) {
                    Ok(text) => self.on_text(text, ctx),
                    Err(_) => self.close(ctx, DisconnectReason::ParseError),
                }
            } else {
                self.on_binary(data, ctx);
            }
        }
    }
}

impl Actor for WsSession {
    type Context = WebsocketContext<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        if self.upgrade_from.is_some() {
            // The connection comes from the polling session once the client
            // finishes the upgrade; a client that never does is dropped.
            ctx.run_later(self.shared.config().connect_timeout, |act, ctx| {
                if act.conn.is_none() {
                    act.close(ctx, DisconnectReason::TransportClose);
                }
            });
            return;
        }
        let Some(permit) = self.permit.take() else {
            return self.close(ctx, DisconnectReason::TransportClose);
        };
        let sid = random_id();
        let opened = Instant::now();
        write(ctx, OutPacket::open(&self.shared.open_json(&sid, false)));
        let recipient = ctx.address().recipient();
        self.conn = Some(Conn::new(self.shared.clone(), recipient, permit, opened));
        let config = self.shared.config().clone();
        heartbeat::start(self, ctx, &config, opened);
    }

    fn stopped(&mut self, _: &mut Self::Context) {
        if let Some(mut conn) = self.conn.take() {
            conn.shutdown(DisconnectReason::TransportClose);
        }
        if let Some(polling) = self.upgrade_from.take() {
            polling.do_send(ProbeAborted);
        }
    }
}

impl EngineActor for WsSession {
    type Ctx = WebsocketContext<Self>;

    fn heartbeat(&mut self) -> &mut Heartbeat {
        &mut self.heartbeat
    }

    fn send_packet(&mut self, ctx: &mut Self::Ctx, packet: OutPacket) {
        socket(ctx, &mut self.held).push(packet);
    }

    fn close(&mut self, ctx: &mut Self::Ctx, reason: DisconnectReason) {
        if let Some(mut conn) = self.conn.take() {
            conn.shutdown(reason);
        }
        // What was held back still goes before the close.
        self.release_held(ctx);
        let code = match reason {
            DisconnectReason::ParseError => CloseCode::Protocol,
            DisconnectReason::SlowClient | DisconnectReason::NotAdmitted => CloseCode::Policy,
            _ => CloseCode::Normal,
        };
        ctx.close(Some(CloseReason::from(code)));
        ctx.stop();
    }

    fn has_joined(&self) -> bool {
        self.conn.as_ref().is_some_and(Conn::has_joined)
    }

    fn admission(&self) -> Option<(bool, Instant)> {
        self.conn.as_ref().map(|c| (c.admitted(), c.opened()))
    }
}

impl StreamHandler<Result<ws::Message, ws::ProtocolError>> for WsSession {
    fn handle(&mut self, msg: Result<ws::Message, ws::ProtocolError>, ctx: &mut Self::Context) {
        pacing::note_frame(self.shared.config().coalesce_window);
        match msg {
            Ok(ws::Message::Text(text)) => self.on_text(&text, ctx),
            Ok(ws::Message::Binary(data)) => self.on_binary(data, ctx),
            Ok(ws::Message::Continuation(item)) => self.on_fragment(item, ctx),
            Ok(ws::Message::Ping(data)) => ctx.pong(&data),
            Ok(ws::Message::Pong(_)) | Ok(ws::Message::Nop) => {}
            Ok(ws::Message::Close(_)) => self.close(ctx, DisconnectReason::TransportClose),
            // A dropped connection is not the client's protocol mistake.
            Err(ws::ProtocolError::Io(_)) => self.close(ctx, DisconnectReason::TransportClose),
            Err(e) => {
                tracing::debug!(error = %e, "websocket protocol error");
                self.close(ctx, DisconnectReason::ParseError);
            }
        }
    }
}

impl Handler<Command> for WsSession {
    type Result = ();

    fn handle(&mut self, cmd: Command, ctx: &mut Self::Context) {
        let Some(conn) = self.conn.as_mut() else {
            return;
        };
        if conn.overflowed() {
            tracing::debug!("slow websocket client; closing");
            return self.close(ctx, DisconnectReason::SlowClient);
        }
        if conn.on_command(cmd, &mut socket(ctx, &mut self.held)) == Flow::Close {
            self.close(ctx, DisconnectReason::ServerClose);
        }
    }
}

/// A WebSocket for a session that another WebSocket upgrades or has
/// upgraded: as on the reference server, its handshake completes and it is
/// closed at once, so a client sees a closed socket rather than a failed
/// handshake (which the reference clients raise as an error).
pub(crate) struct Superseded;

impl Actor for Superseded {
    type Context = WebsocketContext<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        ctx.close(None);
        ctx.stop();
    }
}

impl StreamHandler<Result<ws::Message, ws::ProtocolError>> for Superseded {
    fn handle(&mut self, _: Result<ws::Message, ws::ProtocolError>, _: &mut Self::Context) {}
}
