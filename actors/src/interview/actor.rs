//! The `InterviewSession` actix actor: one per session, found or started by [`Registry`].
//! It owns the session's state and its timers (the time-limit tick, the idle stop); HTTP
//! handlers and sockets send it one message per command and await the typed answer.
//!
//! [`Registry`]: super::Registry

use super::ports::Deps;
use super::session::{
    ActorError, AnswerOutcome, CompleteOutcome, Session, StartOutcome, REASON_TIME,
};
use crate::registry::{Lease, Retire};
use actix::prelude::*;
use sea_orm::DbErr;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;
use switchboard_entities::interview::session;

/// pending → in_progress: greeting and first question.
#[derive(Message, Clone)]
#[rtype(result = "Result<StartOutcome, ActorError>")]
pub(crate) struct Start;

/// in_progress → paused: the time limit stops.
#[derive(Message, Clone)]
#[rtype(result = "Result<session::Model, ActorError>")]
pub(crate) struct Pause;

/// paused → in_progress.
#[derive(Message, Clone)]
#[rtype(result = "Result<session::Model, ActorError>")]
pub(crate) struct Resume;

/// in_progress or paused → completed: closing message and report.
#[derive(Message, Clone)]
#[rtype(result = "Result<CompleteOutcome, ActorError>")]
pub(crate) struct Complete;

/// The candidate's answer to the open question.
#[derive(Message, Clone)]
#[rtype(result = "Result<AnswerOutcome, ActorError>")]
pub(crate) struct Answer(pub String);

/// Stops the actor (its session is being deleted).
#[derive(Message, Clone)]
#[rtype(result = "()")]
pub(crate) struct Stop;

/// A command's work on the session, borrowing it while it runs.
type Op<'a, T> = Pin<Box<dyn Future<Output = Result<T, ActorError>> + 'a>>;

enum State {
    /// Lent to the command or start-up load that runs now. Both block the mailbox and the
    /// timers (`ctx.wait`), so no handler ever finds the state away.
    Away,
    Ready(Box<Session>),
    /// No such session (`None`), or it could not be read: every command gets this answer.
    Gone(Option<String>),
}

impl State {
    fn refusal(&self) -> ActorError {
        match self {
            State::Gone(Some(e)) => ActorError::Db(DbErr::Custom(e.clone())),
            State::Gone(None) => ActorError::NotFound,
            State::Away | State::Ready(_) => ActorError::Unavailable,
        }
    }
}

pub(crate) struct InterviewSession {
    lease: Lease<Self>,
    deps: Arc<Deps>,
    state: State,
    /// The next wake-up: a tick while the session runs, else the idle stop.
    timer: Option<SpawnHandle>,
}

impl InterviewSession {
    pub(crate) fn new(lease: Lease<Self>, deps: Arc<Deps>) -> Self {
        Self {
            lease,
            deps,
            state: State::Away,
            timer: None,
        }
    }

    /// Lends the session to `op` for as long as it runs. Callers block the actor meanwhile
    /// (`ctx.wait`, `AtomicResponse`), so commands and timers take their turns as in a loop.
    fn lend<T: 'static>(
        &mut self,
        op: impl for<'a> FnOnce(&'a mut Session) -> Op<'a, T> + 'static,
    ) -> ResponseActFuture<Self, Result<T, ActorError>> {
        let mut session = match std::mem::replace(&mut self.state, State::Away) {
            State::Ready(s) => s,
            other => {
                let refused = other.refusal();
                self.state = other;
                return Box::pin(fut::ready(Err(refused)));
            }
        };
        let work = async move {
            let out = op(&mut session).await;
            (session, out)
        };
        Box::pin(work.into_actor(self).map(|(session, out), act, _| {
            act.state = State::Ready(session);
            out
        }))
    }

    /// Runs a command; between two commands the actor reads the clock (see [`Self::settle`]).
    fn command<T: 'static>(
        &mut self,
        op: impl for<'a> FnOnce(&'a mut Session) -> Op<'a, T> + 'static,
    ) -> AtomicResponse<Self, Result<T, ActorError>> {
        AtomicResponse::new(Box::pin(self.lend(op).map(|out, act, ctx| {
            act.settle(ctx);
            out
        })))
    }

    /// Completes a session whose time limit ran out, then arms the next wake-up: while the
    /// session runs, at least once per tick (the limit is measured on the injected clock,
    /// so a test that moves the clock sees the session complete within one tick); otherwise
    /// the idle stop, after which the next command revives the actor from the database.
    fn settle(&mut self, ctx: &mut Context<Self>) {
        if let Some(timer) = self.timer.take() {
            ctx.cancel_future(timer);
        }
        let State::Ready(session) = &self.state else {
            return;
        };
        let timing = self.deps.timing;
        let now = session.now();
        let wait = match session.deadline() {
            Some(deadline) if now >= deadline => return self.time_out(ctx),
            Some(deadline) => (deadline - now)
                .to_std()
                .unwrap_or(Duration::ZERO)
                .min(timing.tick),
            None => {
                self.timer = Some(ctx.run_later(timing.idle, |_, ctx| ctx.stop()));
                return;
            }
        };
        self.timer = Some(ctx.run_later(wait, |act, ctx| act.settle(ctx)));
    }

    /// Ends the session at its time limit. Nothing else happens to an overdue session
    /// meanwhile; a failure is retried a tick later.
    fn time_out(&mut self, ctx: &mut Context<Self>) {
        let tick = self.deps.timing.tick;
        let ending = self.lend(|s| Box::pin(s.complete(REASON_TIME)));
        ctx.wait(ending.map(move |out, act, ctx| match out {
            Ok(_) => act.settle(ctx),
            Err(e) => {
                tracing::error!(session = %act.lease.id(), error = %e, "auto-complete failed");
                ctx.wait(
                    actix::clock::sleep(tick)
                        .into_actor(act)
                        .map(|_, act, ctx| act.settle(ctx)),
                );
            }
        }));
    }
}

impl Actor for InterviewSession {
    type Context = Context<Self>;

    /// Loads the session before the first command is handled.
    fn started(&mut self, ctx: &mut Self::Context) {
        let loading = Session::restore(self.deps.clone(), self.lease.id());
        ctx.wait(loading.into_actor(self).map(|loaded, act, ctx| {
            act.state = match loaded {
                Ok(Some(session)) => State::Ready(Box::new(session)),
                Ok(None) => State::Gone(None),
                Err(e) => State::Gone(Some(e.to_string())),
            };
            if let State::Gone(_) = act.state {
                // Answer what is queued, but let the next caller read the database again;
                // this actor stops once nobody holds its address.
                act.lease.release();
            }
            act.settle(ctx);
        }));
    }

    fn stopped(&mut self, _: &mut Self::Context) {
        self.lease.release();
    }
}

/// Another node took this session over (see `ActorRegistry::owned`).
impl Handler<Retire> for InterviewSession {
    type Result = ();
    fn handle(&mut self, _: Retire, ctx: &mut Self::Context) {
        ctx.stop();
    }
}

impl Handler<Start> for InterviewSession {
    type Result = AtomicResponse<Self, Result<StartOutcome, ActorError>>;
    fn handle(&mut self, _: Start, _: &mut Self::Context) -> Self::Result {
        self.command(|s| Box::pin(s.start()))
    }
}

impl Handler<Pause> for InterviewSession {
    type Result = AtomicResponse<Self, Result<session::Model, ActorError>>;
    fn handle(&mut self, _: Pause, _: &mut Self::Context) -> Self::Result {
        self.command(|s| Box::pin(s.pause()))
    }
}

impl Handler<Resume> for InterviewSession {
    type Result = AtomicResponse<Self, Result<session::Model, ActorError>>;
    fn handle(&mut self, _: Resume, _: &mut Self::Context) -> Self::Result {
        self.command(|s| Box::pin(s.resume()))
    }
}

impl Handler<Complete> for InterviewSession {
    type Result = AtomicResponse<Self, Result<CompleteOutcome, ActorError>>;
    fn handle(&mut self, _: Complete, _: &mut Self::Context) -> Self::Result {
        self.command(|s| Box::pin(s.complete_requested()))
    }
}

impl Handler<Answer> for InterviewSession {
    type Result = AtomicResponse<Self, Result<AnswerOutcome, ActorError>>;
    fn handle(&mut self, Answer(content): Answer, _: &mut Self::Context) -> Self::Result {
        self.command(|s| Box::pin(s.answer(content)))
    }
}

impl Handler<Stop> for InterviewSession {
    type Result = ();
    fn handle(&mut self, _: Stop, ctx: &mut Self::Context) {
        ctx.stop();
    }
}
