//! Timers every transport actor runs: the server pings at `ping_interval`
//! and drops the client if no pong arrives within `ping_timeout`; a client
//! that joins no namespace within `connect_timeout` is dropped too.

use std::time::Duration;

use actix::{Actor, AsyncContext, SpawnHandle};

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
}

#[derive(Default)]
pub(crate) struct Heartbeat {
    interval: Duration,
    timeout: Duration,
    next_ping: Option<SpawnHandle>,
    pong_deadline: Option<SpawnHandle>,
}

/// Starts pinging, and the connect timeout unless a namespace was joined.
pub(crate) fn start<A: EngineActor>(act: &mut A, ctx: &mut A::Ctx, config: &SocketIoConfig) {
    let hb = act.heartbeat();
    hb.interval = config.ping_interval;
    hb.timeout = config.ping_timeout;
    schedule_ping(act, ctx);
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
    for handle in [hb.next_ping.take(), hb.pong_deadline.take()]
        .into_iter()
        .flatten()
    {
        ctx.cancel_future(handle);
    }
}

fn schedule_ping<A: EngineActor>(act: &mut A, ctx: &mut A::Ctx) {
    let interval = act.heartbeat().interval;
    let handle = ctx.run_later(interval, |act, ctx| {
        act.heartbeat().next_ping = None;
        act.send_packet(ctx, OutPacket::ping());
        let timeout = act.heartbeat().timeout;
        let deadline = ctx.run_later(timeout, |act, ctx| {
            act.heartbeat().pong_deadline = None;
            act.close(ctx, DisconnectReason::PingTimeout);
        });
        act.heartbeat().pong_deadline = Some(deadline);
    });
    act.heartbeat().next_ping = Some(handle);
}

/// A pong answers the outstanding ping; the next ping follows an interval later.
pub(crate) fn on_pong<A: EngineActor>(act: &mut A, ctx: &mut A::Ctx) {
    if let Some(deadline) = act.heartbeat().pong_deadline.take() {
        ctx.cancel_future(deadline);
        schedule_ping(act, ctx);
    }
}
