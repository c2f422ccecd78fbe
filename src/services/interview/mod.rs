//! Interview service: AI-led candidate interviews with scoring and reports, plus the
//! onboarding chat (`specs/identity-and-interview.md`). Each session is an
//! `InterviewSession` actor (crate `switchboard-actors`); REST handlers and Socket.IO
//! events send it commands, and it announces its events to the session's room. Laid out by
//! feature (`sessions`, `reports`, `onboarding`, the candidate's `page`), each folder holding
//! its routes, wire shapes and rules; this module only builds the state and registers them.

mod caller;
mod error;
mod health;
mod limits;
mod onboarding;
mod openapi;
mod page;
pub(crate) mod reports;
mod sessions;
pub mod settings;
mod state;
mod webhooks;

use crate::core::clock::ActorClock;
use crate::core::config::weak_secret;
use crate::core::http::{api_docs, resource};
use crate::core::jobs::counted;
use crate::core::placement;
use crate::core::server::{serve, Listening, MountError};
use crate::core::service::Service;
use crate::core::CoreContext;
use crate::providers::Providers;
use crate::realtime::{self, RedisAdapterConfig, SocketIoConfig, SocketIoServer};
use actix_web::web;
use settings::InterviewSettings;
use std::sync::Arc;
use std::time::Duration;
use switchboard_actors::interview::{forward, Deps, Registry, Timing};
use utoipa_actix_web::service_config::ServiceConfig;

pub use error::InterviewEnvelope;
use state::{InterviewState, RoomBroadcast};

pub struct Interview;

impl Service for Interview {
    const NAME: &'static str = "interview";
    type Settings = InterviewSettings;
    type Providers = Providers;

    fn unsafe_keys(cfg: &InterviewSettings, _: &Providers) -> Vec<String> {
        let keys = [
            weak_secret("services.interview.api_key", &cfg.api_key),
            weak_secret("services.interview.admin_key", &cfg.admin_key),
        ];
        cfg.webhook
            .with_unsafe_keys("services.interview.webhook", keys)
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
        let hook =
            webhooks::Webhooks::new(core, &cfg, &providers.roots).map_err(MountError::client)?;
        let registry = Registry::new(
            Deps {
                db: core.db.clone(),
                clock: Arc::new(ActorClock(core.clock.clone())),
                ai: providers.interviewer.clone(),
                broadcast: Arc::new(broadcast.clone()),
                hook: Arc::new(hook.clone()),
                timing: Timing {
                    tick: Duration::from_millis(cfg.timer_tick_ms.max(10)),
                    idle: Duration::from_secs(cfg.actor_idle_secs.max(1)),
                },
            },
            core.placement(Self::NAME, forward::KIND),
        );
        core.metrics.actors(Self::NAME, forward::KIND, {
            let registry = registry.clone();
            move || registry.live()
        });
        placement::serve(core, Self::NAME, forward::KIND, {
            let registry = registry.clone();
            move |id, command| {
                let registry = registry.clone();
                Box::pin(async move { registry.run_forwarded(id, command).await })
            }
        });
        let state = InterviewState {
            core: core.clone(),
            providers: providers.clone(),
            cfg,
            registry: registry.clone(),
        };
        let sio = SocketIoServer::builder(SocketIoConfig::from_settings(&core.settings.realtime))
            .namespace("/", sessions::socket::Sessions::new(state.clone()))
            .redis_adapter(RedisAdapterConfig::from_settings(
                &core.settings.cluster,
                &core.settings.realtime,
                Self::NAME,
                &providers.roots,
            ))
            .build();
        let _ = broadcast.0.set(sio.clone());

        adopt_running(core, &registry);
        hook.register(core);

        let data = web::Data::new(state);
        serve::<InterviewEnvelope, _>(Self::NAME, &bind, core, openapi::document(), move |cfg| {
            routes(cfg, data.clone(), sio.clone())
        })
    }
}

/// The recurring job that adopts the sessions whose node died (several nodes).
const ADOPT_TOPIC: &str = "interview.adopt_running";

/// Keeps every running session's timer running: one node restores them all at start-up;
/// on several nodes whichever node runs the recurring job adopts, once per lease period, the
/// sessions no live node owns, so a node's start-up never takes over another's sessions.
fn adopt_running(core: &CoreContext, registry: &Registry) {
    let registry = registry.clone();
    if !registry.is_shared() {
        tokio::spawn(async move {
            match registry.adopt_running().await {
                Ok(0) => {}
                Ok(n) => tracing::info!(sessions = n, "restored running interview sessions"),
                Err(e) => tracing::error!(error = %e, "restoring interview sessions failed"),
            }
        });
        return;
    }
    let every = Duration::from_secs(core.settings.cluster.lease_secs.max(1));
    core.jobs.every(ADOPT_TOPIC, every, move |_| {
        let registry = registry.clone();
        async move {
            let adopted = registry.adopt_running().await;
            if let Ok(n @ 1..) = adopted {
                tracing::info!(sessions = n, "took over running interview sessions");
            }
            counted(adopted.map(|n| n as u64))
        }
    });
}

fn routes(cfg: &mut ServiceConfig, data: web::Data<InterviewState>, sio: SocketIoServer) {
    let cfg = cfg
        .app_data(web::Data::new(caller::policy(&data.core, &data.cfg)))
        .app_data(web::Data::new(limits::limits(&data)))
        .app_data(data)
        .map(|c| c.service(realtime::scope(sio)))
        .service(health::health)
        .service(health::api_health)
        .map(|c| {
            api_docs(c);
            // The candidate's page: HTML outside the API document.
            c.service(resource("/interview/{token}").get(page::routes::page))
                .service(resource("/interview-assets/client.js").get(page::routes::client_js))
        });
    crate::handlers!(cfg,
        sessions::routes => [create, by_token, by_user, by_id, delete, start, pause, resume,
            complete, messages, answer],
        reports::routes => [report, report_pdf],
        onboarding::routes => [start, message],
    );
}
