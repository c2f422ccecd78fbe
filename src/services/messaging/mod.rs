//! Messaging service: SMS, email, WhatsApp and voice sends, bulk sends with templates,
//! credits, signed customer webhooks (one `WebhookEndpoint` actor each) and carrier
//! callbacks (`specs/messaging-and-ads.md`).

mod account;
mod auth;
mod carrier;
pub mod domain;
mod dto;
mod error;
mod health;
mod limits;
mod messages;
mod openapi;
pub mod service;
pub mod settings;
mod webhooks;

use crate::core::config::{unsafe_switch, weak_secret};
use crate::core::http::api_docs;
use crate::core::jobs::{counted, Done, JobResult};
use crate::core::server::{serve, Listening, MountError};
use crate::core::service::Service;
use crate::core::webhook_transport::HttpTransport;
use crate::core::CoreContext;
use crate::providers::email::EmailSender;
use crate::providers::voice::VoiceCaller;
use crate::providers::whatsapp::WhatsAppSender;
use crate::providers::{email, voice, whatsapp, Providers};
use actix_web::web;
use settings::MessagingSettings;
use std::sync::Arc;
use std::time::Duration;
use switchboard_actors::{EndpointDeps, RetryPolicy, WebhookRegistry};
use utoipa_actix_web::service_config::ServiceConfig;

pub use error::MessagingEnvelope;
pub use service::admin::{add_credits, create_workspace, AdminError, NewWorkspace};

#[derive(Clone)]
pub struct MessagingState {
    pub core: CoreContext,
    pub providers: Providers,
    pub cfg: Arc<MessagingSettings>,
    pub email: Arc<dyn EmailSender>,
    pub whatsapp: Arc<dyn WhatsAppSender>,
    pub voice: Arc<dyn VoiceCaller>,
    /// Whether SMS goes to the built-in sandbox (which may report delivery itself).
    pub sms_sandbox: bool,
    pub webhooks: Arc<WebhookRegistry>,
}

fn retry_policy(s: &MessagingSettings) -> RetryPolicy {
    let w = &s.webhooks;
    RetryPolicy {
        timeout: Duration::from_secs(w.timeout_secs.max(1)),
        deactivate_after: w.deactivate_after.max(1),
        max_attempts: w.max_attempts.max(1),
        base_delay_secs: w.base_delay_secs.max(1),
        factor: w.factor.max(1),
        max_delay_secs: w.max_delay_secs.max(1),
        jitter: w.jitter.clamp(0.0, 0.9),
        max_retry_after_secs: w.max_retry_after_secs.max(0),
        idle_stop: Duration::from_secs(w.idle_stop_secs.max(1)),
    }
}

pub struct Messaging;

impl Service for Messaging {
    const NAME: &'static str = "messaging";
    type Settings = MessagingSettings;
    type Providers = Providers;

    fn unsafe_keys(cfg: &MessagingSettings, providers: &Providers) -> Vec<String> {
        // The SMS provider's token also verifies the carrier's callbacks to this service.
        let token = &providers.settings.sms.auth_token;
        [
            weak_secret("providers.sms.auth_token", token),
            unsafe_switch(
                "services.messaging.webhooks.allow_private_urls",
                cfg.webhooks.allow_private_urls,
            ),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// Builds the service's state and the webhook actors (which resume work left by an
    /// earlier run), registers its jobs (dispatch, delivery reports, reconciliation and the
    /// recurring ones) and starts its listener.
    fn mount(
        core: &CoreContext,
        providers: &Providers,
        cfg: &MessagingSettings,
    ) -> Result<Listening, MountError> {
        let cfg = Arc::new(cfg.clone());
        let channels = &providers.settings;
        let outbox = &providers.outbox;
        let email = email::from_settings(&channels.email, outbox.clone(), core.clock.clone())
            .map_err(MountError::client)?;
        let transport =
            HttpTransport::new(cfg.webhooks.allow_private_urls).map_err(MountError::client)?;
        let registry = WebhookRegistry::new(EndpointDeps {
            db: core.db.clone(),
            transport: Arc::new(service::transport::Transport(Arc::new(transport))),
            clock: Arc::new(service::transport::Clock(core.clock.clone())),
            policy: retry_policy(&cfg),
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
    jobs.handle_batch(service::dispatch::TOPIC, batch, move |jobs| {
        let st = st.clone();
        async move { service::dispatch::run_batch(&st, jobs).await }
    });
    let st = state.clone();
    jobs.handle_batch(service::reports::DELIVERY_REPORT, batch, move |jobs| {
        let st = st.clone();
        async move { service::reports::deliver_batch(&st, jobs).await }
    });
    let st = state.clone();
    jobs.every(
        service::reports::RECONCILE,
        Duration::from_secs(state.cfg.reconcile_interval_secs.max(1)),
        move |_| {
            let st = st.clone();
            async move { service::reports::reconcile(&st).await }
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
            async move { counted(service::retention::purge(&st).await) }
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
    cfg.app_data(web::Data::new(auth::policy(&data.core)))
        .app_data(web::Data::new(limits::limits(&data)))
        .app_data(data)
        .map(|c| {
            api_docs(c);
            c
        })
        .service(health::health)
        .service(messages::send)
        .service(messages::bulk)
        .service(messages::list)
        .service(messages::get)
        .service(account::token)
        .service(account::account)
        .service(account::ledger)
        .service(webhooks::create)
        .service(webhooks::list)
        .service(webhooks::get)
        .service(webhooks::update)
        .service(webhooks::delete)
        .service(webhooks::deliveries)
        .service(carrier::status)
        .service(carrier::inbound);
}
