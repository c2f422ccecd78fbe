//! Identity service: phone + PIN accounts, handles, sessions and KYC
//! (`specs/identity-and-interview.md`). Laid out by feature (`auth`, `sessions`, `users`,
//! `kyc`), each folder holding its routes, wire shapes, rules and database work; this module
//! only builds the state and registers them.

mod auth;
mod error;
mod health;
mod kyc;
mod limits;
mod openapi;
mod sessions;
pub mod settings;
mod state;
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
use state::IdentityState;

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
            sessions: Sessions::new(
                sessions::caller::Source(core.db.clone()),
                &core.settings.auth,
            )
            .across(&core.cluster.bus, Self::NAME),
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
    let policy = sessions::caller::policy(&data.core, data.sessions.clone());
    let limits = limits::limits(&data);
    let api = scope("")
        .service(health::health)
        .map(|docs| docs.configure(api_docs));
    let api = crate::handlers!(api,
        auth::routes => [otp_send, otp_verify, signup, signin, pin_reset],
        sessions::routes => [refresh, logout, logout_all],
        users::routes => [me, update_me, delete_me, check_handle, change_handle, public_profile],
        sessions::routes => [list, revoke],
        kyc::routes => [status, initiate, page_handler, submit],
    );
    cfg.app_data(web::Data::new(policy))
        .app_data(web::Data::new(limits))
        .app_data(data)
        .service(api.default_service(web::to(fallback)));
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
            async move { counted(users::service::purge(&st).await) }
        },
    );
    let st = state.clone();
    jobs.every(
        "identity.retention",
        Duration::from_secs(state.core.settings.retention.interval_secs),
        move |_| {
            let st = st.clone();
            async move {
                let tokens = sessions::store::purge_spent(&st).await;
                let codes = auth::otp::purge_failures(&st).await;
                counted(tokens.and_then(|t| codes.map(|c| t + c)))
            }
        },
    );
}
