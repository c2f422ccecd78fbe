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
mod users;

use crate::core::config::IdentitySettings;
use crate::core::http::{not_found, resource};
use crate::core::jobs::counted;
use crate::core::CoreContext;
use crate::startup::{serve, StartupError};
use actix_web::dev::Server;
use actix_web::middleware::from_fn;
use actix_web::web;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

pub use error::IdentityEnvelope;

#[derive(Clone)]
pub struct IdentityState {
    pub core: CoreContext,
    pub cfg: Arc<IdentitySettings>,
}

/// Starts the identity listener and registers its recurring jobs: the purge of deleted
/// accounts and spent codes, and the retention of refresh tokens and wrong-OTP records.
pub fn mount(
    core: &CoreContext,
    bind: &str,
) -> Result<(&'static str, SocketAddr, Server), StartupError> {
    let state = IdentityState {
        core: core.clone(),
        cfg: Arc::new(core.settings.services.identity.clone()),
    };
    register_jobs(&state);
    let data = web::Data::new(state);
    serve::<IdentityEnvelope, _>("identity", bind, core, move |cfg| routes(cfg, data.clone()))
}

fn routes(cfg: &mut web::ServiceConfig, data: web::Data<IdentityState>) {
    // One scope around everything, unknown routes included, so that every response carries
    // the rate-limit headers.
    cfg.app_data(data).service(
        web::scope("")
            .wrap(from_fn(limits::by_client))
            .service(resource("/health").get(health::health))
            .configure(openapi::docs)
            .service(resource("/auth/otp/send").post(auth::otp_send))
            .service(resource("/auth/otp/verify").post(auth::otp_verify))
            .service(resource("/auth/signup").post(auth::signup))
            .service(resource("/auth/signin").post(auth::signin))
            .service(resource("/auth/pin/reset").post(auth::pin_reset))
            .service(resource("/auth/refresh").post(auth::refresh))
            .service(resource("/auth/logout").post(auth::logout))
            .service(resource("/auth/logout/all").post(auth::logout_all))
            .service(
                resource("/users/me")
                    .get(users::me)
                    .patch(users::update_me)
                    .delete(users::delete_me),
            )
            .service(resource("/users/handle/check").get(users::check_handle))
            .service(resource("/users/handle/change").post(users::change_handle))
            .service(resource("/users/@{handle}").get(users::public_profile))
            .service(resource("/sessions").get(sessions::list))
            .service(resource("/sessions/{id}").delete(sessions::revoke))
            .service(resource("/kyc/status").get(kyc::status))
            .service(resource("/kyc/initiate").post(kyc::initiate))
            .service(
                resource("/kyc/verify/{token}")
                    .get(kyc::page_handler)
                    .post(kyc::submit),
            )
            .default_service(web::to(not_found::<IdentityEnvelope>)),
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
