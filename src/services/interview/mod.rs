//! Interview service: AI-led candidate interviews with scoring and reports, plus the
//! onboarding chat (`specs/identity-and-interview.md`). Each session is an
//! `InterviewSession` actor (crate `switchboard-actors`); REST handlers and Socket.IO
//! events send it commands, and it announces its events to the session's room.

mod access;
mod domain;
mod dto;
mod error;
mod health;
mod onboarding;
mod openapi;
mod page;
mod pdf;
mod sessions;
mod socket;
mod webhook;

use crate::core::clock::SharedClock;
use crate::core::config::InterviewSettings;
use crate::core::http::resource;
use crate::core::CoreContext;
use crate::realtime::{self, SocketIoConfig, SocketIoServer};
use crate::startup::{serve, StartupError};
use actix_web::dev::Server;
use actix_web::web;
use serde_json::Value;
use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use switchboard_actors::interview::{Broadcast, Deps, Registry, TimeSource, Timing};
use uuid::Uuid;

pub use error::InterviewEnvelope;

#[derive(Clone)]
pub struct InterviewState {
    pub core: CoreContext,
    pub cfg: Arc<InterviewSettings>,
    pub registry: Registry,
}

/// The room a session's sockets join.
pub fn room(session_id: Uuid) -> String {
    format!("session:{session_id}")
}

struct Clock(SharedClock);

impl TimeSource for Clock {
    fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.0.now()
    }
}

/// Session events to the sockets in the session's room. The Socket.IO server is built
/// after the registry (its handler needs the registry), hence the late binding.
#[derive(Default, Clone)]
struct RoomBroadcast(Arc<OnceLock<SocketIoServer>>);

impl Broadcast for RoomBroadcast {
    fn emit(&self, session_id: Uuid, event: &str, data: &Value) {
        if let Some(server) = self.0.get() {
            if let Err(e) = server.emit_to_room("/", &room(session_id), event, data) {
                tracing::error!(error = %e, event, "socket emit failed");
            }
        }
    }
}

/// Starts the interview listener, restores running sessions and registers the webhook jobs.
pub fn mount(
    core: &CoreContext,
    bind: &str,
) -> Result<(&'static str, SocketAddr, Server), StartupError> {
    let cfg = Arc::new(core.settings.services.interview.clone());
    let broadcast = RoomBroadcast::default();
    let hook = webhook::Webhooks::new(core, &cfg).map_err(|e| StartupError::Http(e.to_string()))?;
    let registry = Registry::new(Deps {
        db: core.db.clone(),
        clock: Arc::new(Clock(core.clock.clone())),
        ai: crate::providers::ai::from_settings(&core.settings.ai, core.http.clone()),
        broadcast: Arc::new(broadcast.clone()),
        hook: Arc::new(hook.clone()),
        timing: Timing {
            tick: Duration::from_millis(cfg.timer_tick_ms.max(10)),
            idle: Duration::from_secs(cfg.actor_idle_secs.max(1)),
        },
    });
    let state = InterviewState {
        core: core.clone(),
        cfg,
        registry: registry.clone(),
    };
    let rt = &core.settings.realtime;
    let sio_config = SocketIoConfig {
        coalesce_window: Duration::from_micros(rt.coalesce_window_us),
        max_connections: rt.max_connections,
        max_connections_per_ip: rt.max_connections_per_ip,
        // A candidate's socket is admitted by join_session with a valid token.
        admission_timeout: (rt.admission_timeout_secs > 0)
            .then(|| Duration::from_secs(rt.admission_timeout_secs)),
        max_outbound_queue: rt.max_outbound_queue,
        max_handlers_in_flight: rt.max_handlers_in_flight,
        ..SocketIoConfig::default()
    };
    let sio = SocketIoServer::builder(sio_config)
        .namespace("/", socket::Sessions::new(state.clone()))
        .build();
    let _ = broadcast.0.set(sio.clone());

    tokio::spawn(async move {
        match registry.restore_running().await {
            Ok(0) => {}
            Ok(n) => tracing::info!(sessions = n, "restored running interview sessions"),
            Err(e) => tracing::error!(error = %e, "restoring interview sessions failed"),
        }
    });
    hook.register(core);

    let data = web::Data::new(state);
    serve::<InterviewEnvelope, _>("interview", bind, core, move |cfg| {
        routes(cfg, data.clone(), sio.clone())
    })
}

fn routes(cfg: &mut web::ServiceConfig, data: web::Data<InterviewState>, sio: SocketIoServer) {
    cfg.app_data(data)
        .service(realtime::scope(sio))
        .service(resource("/health").get(health::health))
        .service(resource("/api/v1/health").get(health::api_health))
        .configure(openapi::docs)
        .service(resource("/interview/{token}").get(page::page))
        .service(resource("/interview-assets/client.js").get(page::client_js))
        .service(
            web::scope("/api/v1")
                .service(resource("/sessions").post(sessions::create))
                .service(resource("/sessions/token/{token}").get(sessions::by_token))
                .service(resource("/sessions/user/{user_id}").get(sessions::by_user))
                .service(
                    resource("/sessions/{session_id}")
                        .get(sessions::by_id)
                        .delete(sessions::delete),
                )
                .service(resource("/sessions/{session_id}/start").post(sessions::start))
                .service(resource("/sessions/{session_id}/pause").post(sessions::pause))
                .service(resource("/sessions/{session_id}/resume").post(sessions::resume))
                .service(resource("/sessions/{session_id}/complete").post(sessions::complete))
                .service(
                    resource("/sessions/{session_id}/messages")
                        .get(sessions::messages)
                        .post(sessions::answer),
                )
                .service(resource("/sessions/{session_id}/report").get(sessions::report))
                .service(resource("/sessions/{session_id}/report/pdf").get(sessions::report_pdf))
                .service(resource("/onboarding/start").post(onboarding::start))
                .service(resource("/onboarding/{session_id}/message").post(onboarding::message)),
        );
}
