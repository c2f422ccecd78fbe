//! Timers every transport actor runs: the server pings at `ping_interval`
//! and drops the client if no pong arrives within `ping_timeout`; a client
//! that joins no namespace within `connect_timeout`, or that no handler
//! admits within `admission_timeout`, is dropped too.

use std::time::Duration;

use actix::{Actor, AsyncContext, SpawnHandle};
use tokio::time::Instant;

use super::config::SocketIoConfig;
use super::engineio::OutPacket;
use super::socket::DisconnectReason;

/// A transport actor as the timers see it.
pub(crate) trait EngineActor: Actor<Context = Self::Ctx> {
    type Ctx: AsyncContext<Self>;
    fn heartbeat(&mut self) -> &mut Heartbeat;
    fn send_packet(&mut self, ctx: &mut Self::Ctx, packet: OutPacket);
    fn close(&mut self, ctx: &mut Self::Ctx, reason: DisconnectReason);
    fn has_joined(&self) -> bool;
    /// Whether a handler admitted the connection, and when it was opened;
    /// `None` while the actor has no connection.
    fn admission(&self) -> Option<(bool, Instant)>;
}

/// Deadlines are instants on the schedule, not "a duration after the timer
/// ran": a timer that fires late (a busy worker) must not stretch the
/// session's life past pingInterval + pingTimeout as the client counts it.
#[derive(Default)]
pub(crate) struct Heartbeat {
    interval: Duration,
    timeout: Duration,
    next_ping: Option<SpawnHandle>,
    pong_deadline: Option<SpawnHandle>,
    /// When the client must have answered: the outstanding ping's due time
    /// plus the timeout, or the next ping's due time plus the timeout.
    deadline: Option<Instant>,
}

impl Heartbeat {
    /// Whether the client has missed its pong deadline, even if the timer
    /// that closes the connection has not run yet.
    pub(crate) fn expired(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// Starts pinging (the first ping `ping_interval` after `opened`, the moment
/// the client was sent its handshake), and the connect timeout unless a
/// namespace was joined.
pub(crate) fn start<A: EngineActor>(
    act: &mut A,
    ctx: &mut A::Ctx,
    config: &SocketIoConfig,
    opened: Instant,
) {
    let hb = act.heartbeat();
    hb.interval = config.ping_interval;
    hb.timeout = config.ping_timeout;
    schedule_ping(act, ctx, opened + config.ping_interval);
    if let (Some(limit), Some((false, since))) = (config.admission_timeout, act.admission()) {
        ctx.run_later(until(since + limit), |act, ctx| {
            if act.admission().is_some_and(|(admitted, _)| !admitted) {
                act.close(ctx, DisconnectReason::NotAdmitted);
            }
        });
    }
    if !act.has_joined() {
        ctx.run_later(config.connect_timeout, |act, ctx| {
            if !act.has_joined() {
                act.close(ctx, DisconnectReason::TransportClose);
            }
        });
    }
}

/// Stops the timers (before the connection moves to another actor).
pub(crate) fn stop<A: EngineActor>(act: &mut A, ctx: &mut A::Ctx) {
    let hb = act.heartbeat();
    hb.deadline = None;
    for handle in [hb.next_ping.take(), hb.pong_deadline.take()]
        .into_iter()
        .flatten()
    {
        ctx.cancel_future(handle);
    }
}

fn schedule_ping<A: EngineActor>(act: &mut A, ctx: &mut A::Ctx, due: Instant) {
    let deadline = due + act.heartbeat().timeout;
    act.heartbeat().deadline = Some(deadline);
    let handle = ctx.run_later(until(due), move |act, ctx| {
        act.heartbeat().next_ping = None;
        act.send_packet(ctx, OutPacket::ping());
        let timer = ctx.run_later(until(deadline), |act, ctx| {
            act.heartbeat().pong_deadline = None;
            act.close(ctx, DisconnectReason::PingTimeout);
        });
        act.heartbeat().pong_deadline = Some(timer);
    });
    act.heartbeat().next_ping = Some(handle);
}

fn until(at: Instant) -> Duration {
    at.saturating_duration_since(Instant::now())
}

/// A pong answers the outstanding ping; the next ping follows an interval later.
pub(crate) fn on_pong<A: EngineActor>(act: &mut A, ctx: &mut A::Ctx) {
    if let Some(deadline) = act.heartbeat().pong_deadline.take() {
        ctx.cancel_future(deadline);
        let due = Instant::now() + act.heartbeat().interval;
        schedule_ping(act, ctx, due);
    }
}
