//! HTTP long-polling transport: one actor per session keeps the packets
//! waiting for the client's next GET and the GET (if any) waiting for them;
//! the table that finds a session by sid, and the claim a WebSocket holds
//! while it upgrades one.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Duration;

use actix::{
    Actor, ActorContext, Addr, AsyncContext, Context, Handler, Message, MessageResult, Recipient,
};
use dashmap::DashMap;
use tokio::sync::oneshot;
use tokio::time::Instant;

use super::conn::{Conn, Flow, Outbox};
use super::engineio::{self, OutPacket, Packet};
use super::heartbeat::{self, EngineActor, Heartbeat};
use super::shared::Shared;
use super::socket::{Command, DisconnectReason};

/// After handing its connection to a WebSocket, the actor lingers this long
/// to forward commands that were already addressed to it.
const FORWARD_GRACE: Duration = Duration::from_secs(5);

/// While a WebSocket probes, a poll with nothing to carry is answered with a
/// noop this long after the probe (or after it arrived), as the reference
/// server's upgrade check does. The client only sends the upgrade packet once
/// that poll has completed, so an upgrade packet sent without waiting (or a
/// GET sent right behind it) meets a poll still held here, and that poll is
/// refused instead of being answered on a transport that is going away.
const UPGRADE_NOOP_DELAY: Duration = Duration::from_millis(100);

/// After a close packet arrives with no GET pending, the sid stays known
/// this long so the GET the client sent alongside the close (still on its
/// way, possibly on another worker) gets its noop rather than a 400.
const CLOSE_LINGER: Duration = Duration::from_secs(1);

/// The live polling sessions of one server, by sid (shared by every worker).
pub(crate) type PollingSessions = Arc<DashMap<Arc<str>, PollingEntry>>;

/// A live polling session as requests find it by sid. After an upgrade the
/// entry stays, marked upgraded, for as long as the WebSocket lives: the sid
/// is still known, so requests that reuse it are told apart from unknown ones
/// (as the reference server keeps the socket under its sid).
#[derive(Clone)]
pub(crate) struct PollingEntry {
    pub(crate) addr: Addr<PollingSession>,
    /// [`FREE`], [`PROBING`] (a WebSocket holds the [`UpgradeClaim`]) or [`UPGRADED`].
    upgrade: Arc<AtomicU8>,
}

const FREE: u8 = 0;
const PROBING: u8 = 1;
const UPGRADED: u8 = 2;

impl PollingEntry {
    pub(crate) fn new(addr: Addr<PollingSession>) -> Self {
        Self {
            addr,
            upgrade: Arc::default(),
        }
    }

    /// The right to upgrade the session `sid`, for one WebSocket at a time;
    /// `None` while another holds it or has upgraded. Taken in the handshake
    /// request, so which socket wins does not depend on which worker runs it
    /// or on when the polling actor hears of the probe.
    pub(crate) fn claim_upgrade(
        &self,
        sessions: &PollingSessions,
        sid: Arc<str>,
    ) -> Option<UpgradeClaim> {
        self.upgrade
            .compare_exchange(FREE, PROBING, Ordering::AcqRel, Ordering::Acquire)
            .ok()
            .map(|_| UpgradeClaim {
                state: self.upgrade.clone(),
                sessions: sessions.clone(),
                sid,
            })
    }

    /// Whether a WebSocket has taken the session over.
    pub(crate) fn upgraded(&self) -> bool {
        self.upgrade.load(Ordering::Acquire) == UPGRADED
    }
}

/// Held by the WebSocket upgrading a session for as long as it lives: a
/// probe that fails gives the upgrade back; once the upgrade succeeded,
/// the end of the socket forgets the sid.
pub(crate) struct UpgradeClaim {
    state: Arc<AtomicU8>,
    sessions: PollingSessions,
    sid: Arc<str>,
}

impl UpgradeClaim {
    /// The connection has moved to the WebSocket.
    pub(crate) fn complete(&self) {
        self.state.store(UPGRADED, Ordering::Release);
    }
}

impl Drop for UpgradeClaim {
    fn drop(&mut self) {
        if self.state.load(Ordering::Acquire) == UPGRADED {
            self.sessions
                .remove_if(&self.sid, |_, e| Arc::ptr_eq(&e.upgrade, &self.state));
        } else {
            self.state.store(FREE, Ordering::Release);
        }
    }
}

pub(crate) struct PollingSession {
    sid: Arc<str>,
    shared: Arc<Shared>,
    sessions: PollingSessions,
    conn: Option<Conn>,
    queue: Vec<OutPacket>,
    waiting: Option<oneshot::Sender<PollReply>>,
    heartbeat: Heartbeat,
    /// A WebSocket has probed; polls get a noop so the client can pause.
    upgrading: bool,
    /// The WebSocket actor that took over the connection.
    forward: Option<Recipient<Command>>,
    /// When the handshake was sent: the heartbeat counts from here.
    opened: Instant,
    /// The client closed the session; one more GET gets its noop.
    closed_by_client: bool,
}

/// The answer to a GET.
pub(crate) enum PollReply {
    Payload(String),
    /// The session is closed, upgraded or unknown: HTTP 400.
    Gone,
}

/// A client GET: packets for it arrive on the returned channel.
#[derive(Message)]
#[rtype(result = "oneshot::Receiver<PollReply>")]
pub(crate) struct Poll;

/// A client POST body.
#[derive(Message)]
#[rtype(result = "Result<(), ()>")]
pub(crate) struct Push(pub String);

/// The client sent a POST body larger than maxPayload: the session ends.
#[derive(Message)]
#[rtype(result = "()")]
pub(crate) struct BodyTooLarge;

/// A WebSocket for this session answered the probe.
#[derive(Message)]
#[rtype(result = "()")]
pub(crate) struct ProbeStarted;

/// The probing WebSocket went away before upgrading.
#[derive(Message)]
#[rtype(result = "()")]
pub(crate) struct ProbeAborted;

/// The client sent the upgrade packet on the WebSocket: hand over.
#[derive(Message)]
#[rtype(result = "Option<Handover>")]
pub(crate) struct Upgrade {
    pub target: Recipient<Command>,
}

pub(crate) struct Handover {
    pub conn: Conn,
    pub queued: Vec<OutPacket>,
}

struct Queue<'a>(&'a mut Vec<OutPacket>);

impl Outbox for Queue<'_> {
    fn push(&mut self, packet: OutPacket) {
        self.0.push(packet);
    }
}

impl PollingSession {
    /// `conn.opened()`: when the handshake answer was built, before it was sent.
    pub(crate) fn new(
        sid: Arc<str>,
        shared: Arc<Shared>,
        sessions: PollingSessions,
        conn: Conn,
    ) -> Self {
        let opened = conn.opened();
        Self {
            sid,
            shared,
            sessions,
            conn: Some(conn),
            queue: Vec::new(),
            waiting: None,
            heartbeat: Heartbeat::default(),
            upgrading: false,
            forward: None,
            opened,
            closed_by_client: false,
        }
    }

    /// Takes the sid out of the polling map, unless a WebSocket upgraded the
    /// session: then the sid is the WebSocket's to forget when it ends.
    fn forget_sid(&self) {
        self.sessions.remove_if(&self.sid, |_, e| !e.upgraded());
    }

    /// Answers the waiting GET, if there is one and something to send.
    fn flush(&mut self) {
        if self.queue.is_empty() {
            return;
        }
        let Some(waiting) = self.waiting.take() else {
            return;
        };
        if waiting.is_closed() {
            return; // the client gave up on that GET; keep the packets
        }
        let payload = engineio::encode_payload(&self.queue);
        self.queue.clear();
        let _ = waiting.send(PollReply::Payload(payload));
    }

    /// A client that lets more packets wait than `max_outbound_queue` (or
    /// whose mailbox overflowed) is disconnected rather than buffered for.
    /// True when it was.
    fn drop_if_slow(&mut self, ctx: &mut Context<Self>) -> bool {
        let over_queue = self.queue.len() > self.shared.config().max_outbound_queue;
        if over_queue || self.conn.as_ref().is_some_and(Conn::overflowed) {
            tracing::debug!(sid = %self.sid, "slow polling client; closing");
            self.queue.clear();
            self.end(ctx, DisconnectReason::SlowClient, OutPacket::close());
            return true;
        }
        false
    }

    /// During an upgrade, completes the waiting GET a little later with a
    /// noop (if the upgrade has not taken the session meanwhile).
    fn noop_later(&mut self, ctx: &mut Context<Self>) {
        ctx.run_later(UPGRADE_NOOP_DELAY, |act, _| {
            // Packets queued meanwhile were sent at once by flush().
            if !act.upgrading || act.conn.is_none() || !act.queue.is_empty() {
                return;
            }
            if let Some(waiting) = act.waiting.take() {
                let noop = engineio::encode_payload(&[OutPacket::noop()]);
                let _ = waiting.send(PollReply::Payload(noop));
            }
        });
    }

    /// A close packet from the client. The GET pending now, or the one on
    /// its way alongside the close, completes with a noop.
    fn client_close(&mut self, ctx: &mut Context<Self>) {
        if self.waiting.as_ref().is_some_and(|w| !w.is_closed()) {
            return self.end(ctx, DisconnectReason::TransportClose, OutPacket::noop());
        }
        heartbeat::stop(self, ctx);
        if let Some(mut conn) = self.conn.take() {
            conn.shutdown(DisconnectReason::TransportClose);
        }
        self.queue = Vec::new();
        self.closed_by_client = true;
        ctx.run_later(CLOSE_LINGER, |act, ctx| {
            act.end(ctx, DisconnectReason::TransportClose, OutPacket::noop());
        });
    }

    /// Ends the session; a waiting GET gets `last` (close or noop).
    fn end(&mut self, ctx: &mut Context<Self>, reason: DisconnectReason, last: OutPacket) {
        self.forget_sid();
        if let Some(mut conn) = self.conn.take() {
            conn.shutdown(reason);
        }
        if let Some(waiting) = self.waiting.take() {
            self.queue.push(last);
            let _ = waiting.send(PollReply::Payload(engineio::encode_payload(&self.queue)));
        }
        self.queue = Vec::new();
        ctx.stop();
    }

    fn receive(&mut self, ctx: &mut Context<Self>, body: &str) -> Result<(), ()> {
        for packet in engineio::decode_payload(body) {
            let Some(conn) = self.conn.as_mut() else {
                return Err(());
            };
            let result = match packet {
                Ok(Packet::Message(text)) => conn.on_text(text, &mut Queue(&mut self.queue)),
                Ok(Packet::Binary(data)) => conn.on_binary(data, &mut Queue(&mut self.queue)),
                Ok(Packet::Pong(_)) => {
                    heartbeat::on_pong(self, ctx);
                    Ok(Flow::Continue)
                }
                Ok(Packet::Ping(data)) => {
                    self.queue.push(OutPacket::pong(data));
                    Ok(Flow::Continue)
                }
                Ok(Packet::Close) => {
                    self.client_close(ctx);
                    return Ok(());
                }
                Ok(Packet::Noop) => Ok(Flow::Continue),
                Ok(Packet::Open(_) | Packet::Upgrade) | Err(_) => {
                    tracing::debug!(sid = %self.sid, "malformed polling packet");
                    self.end(ctx, DisconnectReason::ParseError, OutPacket::close());
                    return Err(());
                }
            };
            match result {
                Ok(Flow::Continue) => {}
                // A handler that ran at once closed the connection.
                Ok(Flow::Close) => {
                    self.end(ctx, DisconnectReason::ServerClose, OutPacket::close());
                    return Ok(());
                }
                Err(e) => {
                    tracing::debug!(sid = %self.sid, error = %e, "socket.io protocol error");
                    self.end(ctx, DisconnectReason::ParseError, OutPacket::close());
                    return Err(());
                }
            }
        }
        self.flush();
        self.drop_if_slow(ctx);
        Ok(())
    }
}

impl Actor for PollingSession {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        let config = self.shared.config().clone();
        heartbeat::start(self, ctx, &config, self.opened);
    }

    fn stopped(&mut self, _: &mut Context<Self>) {
        // Normally end() did this already; covers the actor being dropped
        // and a handover the WebSocket never completed.
        self.forget_sid();
        if let Some(mut conn) = self.conn.take() {
            conn.shutdown(DisconnectReason::TransportClose);
        }
    }
}

impl EngineActor for PollingSession {
    type Ctx = Context<Self>;

    fn heartbeat(&mut self) -> &mut Heartbeat {
        &mut self.heartbeat
    }

    fn send_packet(&mut self, _: &mut Context<Self>, packet: OutPacket) {
        self.queue.push(packet);
        self.flush();
    }

    fn close(&mut self, ctx: &mut Context<Self>, reason: DisconnectReason) {
        self.end(ctx, reason, OutPacket::close());
    }

    fn has_joined(&self) -> bool {
        self.conn.as_ref().is_some_and(Conn::has_joined)
    }

    fn admission(&self) -> Option<(bool, Instant)> {
        self.conn.as_ref().map(|c| (c.admitted(), c.opened()))
    }
}

impl Handler<Poll> for PollingSession {
    type Result = MessageResult<Poll>;

    fn handle(&mut self, _: Poll, ctx: &mut Context<Self>) -> Self::Result {
        let (tx, rx) = oneshot::channel();
        if std::mem::take(&mut self.closed_by_client) {
            let noop = engineio::encode_payload(&[OutPacket::noop()]);
            let _ = tx.send(PollReply::Payload(noop));
            self.end(ctx, DisconnectReason::TransportClose, OutPacket::noop());
        } else if self.conn.is_none() {
            let _ = tx.send(PollReply::Gone);
        } else if self.heartbeat.expired() {
            // The timer may run late; the deadline holds regardless.
            let _ = tx.send(PollReply::Gone);
            self.end(ctx, DisconnectReason::PingTimeout, OutPacket::close());
        } else if self.waiting.as_ref().is_some_and(|w| !w.is_closed()) {
            // Two GETs at once break the protocol: drop the session.
            let _ = tx.send(PollReply::Gone);
            self.end(ctx, DisconnectReason::ParseError, OutPacket::close());
        } else {
            self.waiting = Some(tx);
            self.flush();
            if self.upgrading && self.waiting.is_some() {
                self.noop_later(ctx);
            }
        }
        MessageResult(rx)
    }
}

impl Handler<Push> for PollingSession {
    type Result = Result<(), ()>;

    fn handle(&mut self, msg: Push, ctx: &mut Context<Self>) -> Result<(), ()> {
        if self.conn.is_some() && self.heartbeat.expired() {
            self.end(ctx, DisconnectReason::PingTimeout, OutPacket::close());
            return Err(());
        }
        self.receive(ctx, &msg.0)
    }
}

impl Handler<BodyTooLarge> for PollingSession {
    type Result = ();

    fn handle(&mut self, _: BodyTooLarge, ctx: &mut Context<Self>) {
        // An upgraded or closed session has no polling transport left to end.
        if self.conn.is_some() {
            tracing::debug!(sid = %self.sid, "polling body over maxPayload; closing");
            self.end(ctx, DisconnectReason::ParseError, OutPacket::close());
        }
    }
}

impl Handler<ProbeStarted> for PollingSession {
    type Result = ();

    fn handle(&mut self, _: ProbeStarted, ctx: &mut Context<Self>) {
        self.upgrading = true;
        self.noop_later(ctx);
    }
}

impl Handler<ProbeAborted> for PollingSession {
    type Result = ();

    fn handle(&mut self, _: ProbeAborted, _: &mut Context<Self>) {
        self.upgrading = false;
    }
}

impl Handler<Upgrade> for PollingSession {
    type Result = MessageResult<Upgrade>;

    fn handle(&mut self, msg: Upgrade, ctx: &mut Context<Self>) -> Self::Result {
        let Some(conn) = self.conn.take() else {
            return MessageResult(None);
        };
        heartbeat::stop(self, ctx);
        conn.retarget(msg.target.clone());
        self.forward = Some(msg.target);
        // The client paused polling before upgrading; a GET still waiting
        // belongs to nobody now.
        if let Some(waiting) = self.waiting.take() {
            let _ = waiting.send(PollReply::Gone);
        }
        ctx.run_later(FORWARD_GRACE, |_, ctx| ctx.stop());
        MessageResult(Some(Handover {
            conn,
            queued: std::mem::take(&mut self.queue),
        }))
    }
}

impl Handler<Command> for PollingSession {
    type Result = ();

    fn handle(&mut self, cmd: Command, ctx: &mut Context<Self>) {
        let Some(conn) = self.conn.as_mut() else {
            if let Some(forward) = &self.forward {
                forward.do_send(cmd);
            }
            return;
        };
        let flow = conn.on_command(cmd, &mut Queue(&mut self.queue));
        if flow == Flow::Close {
            self.end(ctx, DisconnectReason::ServerClose, OutPacket::close());
        } else {
            self.flush();
            self.drop_if_slow(ctx);
        }
    }
}
