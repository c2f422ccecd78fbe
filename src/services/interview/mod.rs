//! Interview service: AI-led candidate interviews with scoring and reports, plus the
//! onboarding chat (`specs/identity-and-interview.md`). Each session is an
//! `InterviewSession` actor (crate `switchboard-actors`); REST handlers and Socket.IO
//! events send it commands, and it announces its events to the session's room.

mod access;
mod domain;
mod dto;
mod error;
mod health;
mod limits;
mod onboarding;
mod openapi;
mod page;
pub(crate) mod pdf;
mod sessions;
pub mod settings;
mod socket;
mod webhook;

use crate::core::clock::ActorClock;
use crate::core::config::{unsafe_switch, weak_secret};
use crate::core::http::{api_docs, resource};
use crate::core::server::{serve, Listening, MountError};
use crate::core::service::Service;
use crate::core::CoreContext;
use crate::providers::Providers;
use crate::realtime::{self, SocketIoConfig, SocketIoServer};
use actix_web::web;
use serde_json::Value;
use settings::InterviewSettings;
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use switchboard_actors::interview::{Broadcast, Deps, Registry, Timing};
use utoipa_actix_web::service_config::ServiceConfig;
use uuid::Uuid;

pub use error::InterviewEnvelope;

#[derive(Clone)]
pub struct InterviewState {
    pub core: CoreContext,
    pub providers: Providers,
    pub cfg: Arc<InterviewSettings>,
    pub registry: Registry,
}

/// The room a session's sockets join.
pub fn room(session_id: Uuid) -> String {
    format!("session:{session_id}")
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

pub struct Interview;

impl Service for Interview {
    const NAME: &'static str = "interview";
    type Settings = InterviewSettings;
    type Providers = Providers;

    fn unsafe_keys(cfg: &InterviewSettings, _: &Providers) -> Vec<String> {
        [
            weak_secret("services.interview.api_key", &cfg.api_key),
            weak_secret("services.interview.admin_key", &cfg.admin_key),
            unsafe_switch(
                "services.interview.webhook.allow_private_urls",
                cfg.webhook.allow_private_urls,
            ),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// Starts the interview listener, restores running sessions and registers the webhook jobs.
    fn mount(
        core: &CoreContext,
        providers: &Providers,
        cfg: &InterviewSettings,
    ) -> Result<Listening, MountError> {
        let bind = cfg.bind.clone();
        let cfg = Arc::new(cfg.clone());
        let broadcast = RoomBroadcast::default();
        let hook = webhook::Webhooks::new(core, &cfg).map_err(MountError::client)?;
        let registry = Registry::new(Deps {
            db: core.db.clone(),
            clock: Arc::new(ActorClock(core.clock.clone())),
            ai: providers.interviewer.clone(),
            broadcast: Arc::new(broadcast.clone()),
            hook: Arc::new(hook.clone()),
            timing: Timing {
                tick: Duration::from_millis(cfg.timer_tick_ms.max(10)),
                idle: Duration::from_secs(cfg.actor_idle_secs.max(1)),
            },
        });
        let state = InterviewState {
            core: core.clone(),
            providers: providers.clone(),
            cfg,
            registry: registry.clone(),
        };
        let sio = SocketIoServer::builder(SocketIoConfig::from_settings(&core.settings.realtime))
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
        serve::<InterviewEnvelope, _>(Self::NAME, &bind, core, openapi::document(), move |cfg| {
            routes(cfg, data.clone(), sio.clone())
        })
    }
}

fn routes(cfg: &mut ServiceConfig, data: web::Data<InterviewState>, sio: SocketIoServer) {
    cfg.app_data(web::Data::new(access::policy(&data.core, &data.cfg)))
        .app_data(web::Data::new(limits::limits(&data)))
        .app_data(data)
        .map(|c| c.service(realtime::scope(sio)))
        .service(health::health)
        .service(health::api_health)
        .map(|c| {
            api_docs(c);
            // The candidate's page: HTML outside the API document.
            c.service(resource("/interview/{token}").get(page::page))
                .service(resource("/interview-assets/client.js").get(page::client_js))
        })
        .service(sessions::create)
        .service(sessions::by_token)
        .service(sessions::by_user)
        .service(sessions::by_id)
        .service(sessions::delete)
        .service(sessions::start)
        .service(sessions::pause)
        .service(sessions::resume)
        .service(sessions::complete)
        .service(sessions::messages)
        .service(sessions::answer)
        .service(sessions::report)
        .service(sessions::report_pdf)
        .service(onboarding::start)
        .service(onboarding::message);
}
