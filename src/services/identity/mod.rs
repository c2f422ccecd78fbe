//! Identity service: phone + PIN accounts, handles, sessions and KYC
//! (`specs/identity-and-interview.md`).

mod auth;
mod domain;
mod dto;
mod error;
mod extract;
mod health;
mod kyc;
mod limits;
mod openapi;
mod service;
mod sessions;
pub mod settings;
mod users;

use crate::core::config::ConfigError;
use crate::core::http::api_docs;
use crate::core::jobs::counted;
use crate::core::routes::fallback;
use crate::core::server::{serve, Listening, MountError};
use crate::core::service::Service;
use crate::core::session::Sessions;
use crate::core::CoreContext;
use crate::providers::Providers;
use actix_web::web;
use settings::IdentitySettings;
use std::sync::Arc;
use std::time::Duration;
use utoipa_actix_web::scope;
use utoipa_actix_web::service_config::ServiceConfig;

pub use error::IdentityEnvelope;

#[derive(Clone)]
pub struct IdentityState {
    pub core: CoreContext,
    pub providers: Providers,
    pub cfg: Arc<IdentitySettings>,
    /// Which sessions are live (every bearer request asks; every change announces).
    pub sessions: Arc<Sessions>,
}

pub struct Identity;

impl Service for Identity {
    const NAME: &'static str = "identity";
    type Settings = IdentitySettings;
    type Providers = Providers;

    fn validate(cfg: &IdentitySettings) -> Result<(), ConfigError> {
        if cfg.purge_interval_secs == 0 {
            return Err(ConfigError::Invalid(
                "services.identity.purge_interval_secs must be at least 1".into(),
            ));
        }
        Ok(())
    }

    fn unsafe_keys(cfg: &IdentitySettings, _: &Providers) -> Vec<String> {
        let sandbox = "services.identity.kyc_sandbox is off but the built-in KYC verifier lets \
                       users verify themselves";
        (!cfg.kyc_sandbox)
            .then(|| sandbox.into())
            .into_iter()
            .collect()
    }

    /// Starts the identity listener and registers its recurring jobs: the purge of deleted
    /// accounts and spent codes, and the retention of refresh tokens and wrong-OTP records.
    fn mount(
        core: &CoreContext,
        providers: &Providers,
        cfg: &IdentitySettings,
    ) -> Result<Listening, MountError> {
        let state = IdentityState {
            core: core.clone(),
            providers: providers.clone(),
            cfg: Arc::new(cfg.clone()),
            sessions: Arc::new(Sessions::new(
                extract::Source(core.db.clone()),
                &core.settings.auth,
            )),
        };
        register_jobs(&state);
        let data = web::Data::new(state);
        serve::<IdentityEnvelope, _>(
            Self::NAME,
            &cfg.bind,
            core,
            openapi::document(),
            move |cfg| routes(cfg, data.clone()),
        )
    }
}

fn routes(cfg: &mut ServiceConfig, data: web::Data<IdentityState>) {
    cfg.app_data(web::Data::new(extract::policy(
        &data.core,
        data.sessions.clone(),
    )))
    .app_data(web::Data::new(limits::limits(&data)))
    .app_data(data)
    .service(
        scope("")
            .service(health::health)
            .map(|docs| docs.configure(api_docs))
            .service(auth::otp_send)
            .service(auth::otp_verify)
            .service(auth::signup)
            .service(auth::signin)
            .service(auth::pin_reset)
            .service(auth::refresh)
            .service(auth::logout)
            .service(auth::logout_all)
            .service(users::me)
            .service(users::update_me)
            .service(users::delete_me)
            .service(users::check_handle)
            .service(users::change_handle)
            .service(users::public_profile)
            .service(sessions::list)
            .service(sessions::revoke)
            .service(kyc::status)
            .service(kyc::initiate)
            .service(kyc::page_handler)
            .service(kyc::submit)
            .default_service(web::to(fallback)),
    );
}

/// Recurring jobs (once per interval across all nodes).
fn register_jobs(state: &IdentityState) {
    let jobs = &state.core.jobs;
    let st = state.clone();
    jobs.every(
        "identity.purge",
        Duration::from_secs(state.cfg.purge_interval_secs),
        move |_| {
            let st = st.clone();
            async move { counted(service::accounts::purge(&st).await) }
        },
    );
    let st = state.clone();
    jobs.every(
        "identity.retention",
        Duration::from_secs(state.core.settings.retention.interval_secs),
        move |_| {
            let st = st.clone();
            async move {
                let tokens = service::tokens::purge_spent(&st).await;
                let codes = service::otp::purge_failures(&st).await;
                counted(tokens.and_then(|t| codes.map(|c| t + c)))
            }
        },
    );
}
