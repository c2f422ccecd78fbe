//! Messaging service: SMS, email, WhatsApp and voice sends, bulk sends with templates,
//! credits, signed customer webhooks (one `WebhookEndpoint` actor each) and carrier
//! callbacks (`specs/messaging-and-ads.md`). Laid out by feature (`accounts`, `messages`,
//! `billing`, `carrier`, `webhooks`), each folder holding its routes, wire shapes, rules and
//! database work; this module only builds the state, registers the jobs and the routes.

mod accounts;
mod billing;
mod carrier;
mod cli;
mod consent;
mod error;
mod health;
mod limits;
mod messages;
mod openapi;
mod retention;
pub mod settings;
mod state;
mod webhooks;

use crate::core::admin::{AdminContext, AdminRun};
use crate::core::config::weak_secret;
use crate::core::http::api_docs;
use crate::core::jobs::{counted, Done, JobResult};
use crate::core::placement;
use crate::core::server::{serve, Listening, MountError};
use crate::core::service::Service;
use crate::core::webhook_transport::HttpTransport;
use crate::core::CoreContext;
use crate::providers::{email, voice, whatsapp, Providers};
use actix_web::web;
use settings::MessagingSettings;
use std::sync::Arc;
use std::time::Duration;
use switchboard_actors::{EndpointDeps, WebhookRegistry, ENDPOINT_KIND};
use utoipa_actix_web::service_config::ServiceConfig;

pub use accounts::admin::{add_credits, create_workspace, NewWorkspace};
pub use billing::domain::credits_text;
pub use error::MessagingEnvelope;
use state::MessagingState;

pub struct Messaging;

impl Service for Messaging {
    const NAME: &'static str = "messaging";
    type Settings = MessagingSettings;
    type Providers = Providers;

    fn unsafe_keys(cfg: &MessagingSettings, providers: &Providers) -> Vec<String> {
        // The SMS provider's token also verifies the carrier's callbacks to this service.
        let token = weak_secret(
            "providers.sms.auth_token",
            &providers.settings.sms.auth_token,
        );
        cfg.webhooks
            .with_unsafe_keys("services.messaging.webhooks", [token])
    }

    /// Builds the service's state and the webhook actors (which resume work left by an
    /// earlier run), registers its jobs (dispatch, delivery reports, reconciliation and the
    /// recurring ones) and starts its listener.
    fn admin_commands(admin: clap::Command) -> clap::Command {
        cli::commands(admin)
    }

    fn run_admin<'a>(
        admin: &'a clap::ArgMatches,
        ctx: AdminContext<'a>,
        cfg: &'a MessagingSettings,
        _providers: &'a Providers,
    ) -> Option<AdminRun<'a>> {
        cli::run(admin, ctx, cfg)
    }

    fn mount(
        core: &CoreContext,
        providers: &Providers,
        cfg: &MessagingSettings,
    ) -> Result<Listening, MountError> {
        let cfg = Arc::new(cfg.clone());
        let channels = &providers.settings;
        let outbox = &providers.outbox;
        let email = email::from_settings(
            &channels.email,
            outbox.clone(),
            core.clock.clone(),
            &providers.roots,
        )
        .map_err(MountError::client)?;
        let transport = HttpTransport::new(
            "messaging",
            cfg.webhooks.allow_private_urls,
            &providers.roots,
        )
        .map_err(MountError::client)?;
        let registry = WebhookRegistry::new(
            EndpointDeps {
                db: core.db.clone(),
                transport: Arc::new(webhooks::transport::Transport(Arc::new(transport))),
                clock: Arc::new(webhooks::transport::Clock(core.clock.clone())),
                policy: webhooks::transport::retry_policy(&cfg),
                owner: core.node.id.to_string(),
                // Before this process's first claim: its earlier runs' claims are older.
                started_at: core.clock.now(),
            },
            core.placement(Self::NAME, ENDPOINT_KIND),
        );
        core.metrics.actors(Self::NAME, ENDPOINT_KIND, {
            let registry = registry.clone();
            move || registry.running()
        });
        placement::serve(core, Self::NAME, ENDPOINT_KIND, {
            let registry = registry.clone();
            move |id, delivery| {
                let registry = registry.clone();
                Box::pin(async move {
                    registry.enqueue_forwarded(id, delivery).await;
                    serde_json::Value::Null
                })
            }
        });
        let state = MessagingState {
            core: core.clone(),
            providers: providers.clone(),
            email,
            whatsapp: whatsapp::from_settings(
                &channels.whatsapp,
                outbox.clone(),
                core.clock.clone(),
                providers.http.clone(),
            ),
            voice: voice::from_settings(
                &channels.voice,
                outbox.clone(),
                core.clock.clone(),
                providers.http.clone(),
            ),
            sms_sandbox: channels.sms.provider != "twilio",
            unsubscribe: consent::unsubscribe::key(&core.settings.auth.jwt_secret),
            email_events_key: consent::bounces::verifying_key(&channels.email.events_public_key)
                .map_err(MountError::client)?,
            webhooks: registry.clone(),
            cfg: cfg.clone(),
        };
        register_jobs(&state);
        let data = web::Data::new(state);
        serve::<MessagingEnvelope, _>(
            Self::NAME,
            &cfg.bind,
            core,
            openapi::document(),
            move |cfg| routes(cfg, data.clone()),
        )
    }
}

/// Message dispatch and the sandbox's delivery reports (one job per message, written with the
/// message, run in batches of `dispatch_batch`), reconciliation of stale messages, webhook actors for pending deliveries now
/// (work left by an earlier run) and then on a recurring job (work another node left behind),
/// and the retention purge.
fn register_jobs(state: &MessagingState) {
    let jobs = &state.core.jobs;
    let st = state.clone();
    let batch = state.cfg.dispatch_batch;
    jobs.handle_batch(messages::dispatch_job::TOPIC, batch, move |jobs| {
        let st = st.clone();
        async move { messages::dispatch::run_batch(&st, jobs).await }
    });
    let st = state.clone();
    jobs.handle_batch(messages::reports::DELIVERY_REPORT, batch, move |jobs| {
        let st = st.clone();
        async move { messages::reports::deliver_batch(&st, jobs).await }
    });
    let st = state.clone();
    jobs.every(
        messages::reports::RECONCILE,
        Duration::from_secs(state.cfg.reconcile_interval_secs.max(1)),
        move |_| {
            let st = st.clone();
            async move { messages::reports::reconcile(&st).await }
        },
    );
    let registry = state.webhooks.clone();
    tokio::spawn(async move { resume_webhooks(&registry).await });
    let registry = state.webhooks.clone();
    state.core.jobs.every(
        "messaging.webhooks.resume",
        Duration::from_secs(state.cfg.webhooks.sweep_interval_secs.max(1)),
        move |_| {
            let registry = registry.clone();
            async move { resume_webhooks(&registry).await }
        },
    );
    let st = state.clone();
    state.core.jobs.every(
        "messaging.retention",
        Duration::from_secs(state.core.settings.retention.interval_secs),
        move |_| {
            let st = st.clone();
            async move { counted(retention::purge(&st).await) }
        },
    );
}

async fn resume_webhooks(registry: &WebhookRegistry) -> JobResult {
    let endpoints = registry.resume_pending().await?;
    if endpoints > 0 {
        tracing::debug!(
            endpoints,
            "webhook endpoints with pending deliveries resumed"
        );
    }
    Ok(Done::default())
}

fn routes(cfg: &mut ServiceConfig, data: web::Data<MessagingState>) {
    let cfg = cfg
        .app_data(web::Data::new(accounts::caller::policy(&data.core)))
        .app_data(web::Data::new(limits::limits(&data)))
        .app_data(data)
        .map(|c| {
            api_docs(c);
            c
        })
        .service(health::health);
    crate::handlers!(cfg,
        messages::routes => [send, bulk, list, get],
        accounts::routes => [token, account, ledger],
        webhooks::routes => [create, list, get, update, delete, deliveries],
        carrier::routes => [status, inbound],
        consent::routes => [list, add, get, remove, settings, set_settings, email_events],
        consent::unsubscribe => [confirm, one_click],
    );
}
