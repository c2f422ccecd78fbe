//! Advertising platform (`specs/messaging-and-ads.md`): posters subscribe to ads, get a video
//! personalised with their referral code, prove they posted it with a screenshot and earn
//! money they can withdraw. Laid out by feature: each folder holds its routes, wire shapes,
//! rules and database work; this module only builds the state and registers them.

pub mod ads;
pub mod advertisers;
pub mod campaigns;
mod cli;
mod console;
mod error;
mod fields;
mod health;
mod jobs;
mod limits;
pub mod media;
pub mod money;
mod openapi;
mod owned;
pub mod payments;
pub mod places;
pub mod posters;
pub mod screenshots;
mod sessions;
pub mod settings;
mod signin_guard;
pub mod staff;
mod state;
pub mod subscriptions;
pub mod support;
mod wire;

use crate::core::admin::{AdminContext, AdminRun};
use crate::core::auth::{Auth, AuthErrors};
use crate::core::config::ConfigError;
use crate::core::error::ApiError;
use crate::core::http::api_docs;
use crate::core::routes::fallback;
use crate::core::server::{serve, Listening, MountError};
use crate::core::service::Service;
use crate::core::session::Sessions;
use crate::core::CoreContext;
use crate::providers::Providers;
use actix_web::web;
use settings::AdvertisingSettings;
use std::sync::Arc;
use utoipa_actix_web::scope;
use utoipa_actix_web::service_config::ServiceConfig;

pub use error::AdvertisingEnvelope;
pub use state::AdvertisingState;

pub struct Advertising;

impl Service for Advertising {
    const NAME: &'static str = "advertising";
    type Settings = AdvertisingSettings;
    type Providers = Providers;

    fn validate(cfg: &AdvertisingSettings) -> Result<(), ConfigError> {
        cfg.check()
    }

    /// Beyond loopback: the development administrator password and dashboard key, and
    /// development payment secrets.
    fn unsafe_keys(cfg: &AdvertisingSettings, providers: &Providers) -> Vec<String> {
        let mut bad = cfg.unsafe_keys();
        bad.extend(providers.settings.payments.unsafe_keys());
        bad
    }

    fn admin_commands(admin: clap::Command) -> clap::Command {
        cli::commands(admin)
    }

    fn run_admin<'a>(
        admin: &'a clap::ArgMatches,
        ctx: AdminContext<'a>,
        _cfg: &'a AdvertisingSettings,
        providers: &'a Providers,
    ) -> Option<AdminRun<'a>> {
        cli::run(admin, ctx, providers)
    }

    fn mount(
        core: &CoreContext,
        providers: &Providers,
        cfg: &AdvertisingSettings,
    ) -> Result<Listening, MountError> {
        let sessions = Sessions::new(
            sessions::Source {
                db: core.db.clone(),
                clock: core.clock.clone(),
            },
            &core.settings.auth,
        )
        .across(&core.cluster.bus, Self::NAME);
        let media = media::Media {
            storage: providers.storage.clone(),
            video: providers.video.clone(),
            verifier: providers.screenshot_verifier.clone(),
            fetch: media::fetch_client(cfg.allow_private_video_urls, &providers.roots)
                .map_err(MountError::client)?,
            allow_private: cfg.allow_private_video_urls,
            max_video_bytes: cfg.max_video_bytes,
            links: media::links::LinkKey::derive(&core.settings.auth.jwt_secret),
            staff_links: media::links::LinkKey::staff(&core.settings.auth.jwt_secret),
        };
        let state = AdvertisingState {
            core: core.clone(),
            providers: providers.clone(),
            cfg: Arc::new(cfg.clone()),
            sessions,
            media,
        };
        subscriptions::video::register(&state);
        screenshots::verify::register(&state);
        support::notify::register_jobs(&state);
        let mailer = advertisers::mail::register(&state).map_err(MountError::client)?;
        signin_guard::register(&state, mailer);
        payments::invoice::register(&state);
        media::cleanup::register(&state);
        let data = web::Data::new(state);
        serve::<AdvertisingEnvelope, _>(
            Self::NAME,
            &cfg.bind,
            core,
            openapi::document(),
            move |cfg| routes(cfg, data.clone()),
        )
    }

    /// Not a listener: makes the configured first administrator when absent, before the
    /// service answers.
    fn companions<'a>(
        core: &'a CoreContext,
        _providers: &'a Providers,
        cfg: &'a AdvertisingSettings,
    ) -> futures_util::future::BoxFuture<'a, Result<Vec<Listening>, MountError>> {
        Box::pin(async move {
            staff::accounts::seed(&core.db, core.now(), &cfg.admin).await?;
            staff::insights::mark_started();
            Ok(Vec::new())
        })
    }
}

/// Bearer tokens of the platform: a poster's, advertiser's or administrator's token (`typ`
/// names which) whose session is live; each route's roles pick the kinds it serves.
fn policy(st: &AdvertisingState) -> Auth {
    Auth::new(
        &st.core,
        sessions::TOKEN_TYPES,
        AuthErrors {
            missing: |what| {
                ApiError::unauthorized(format!("missing {what}: Bearer <token>"))
                    .code("unauthorized")
            },
            invalid_token: |_| {
                ApiError::unauthorized("token is invalid, expired or signed out")
                    .code("unauthorized")
            },
            forbidden: |_| ApiError::forbidden("your account may not do this").code("forbidden"),
            invalid_key: |what| ApiError::unauthorized(format!("invalid {what}")),
        },
    )
    .with_sessions(st.sessions.clone())
    // `X-API-Key` is the website's dashboard key (the only key this service takes).
    .with_api_key(&st.cfg.dashboard_api_key)
}

fn routes(cfg: &mut ServiceConfig, data: web::Data<AdvertisingState>) {
    cfg.app_data(web::Data::new(policy(&data)))
        .app_data(web::Data::new(limits::limits(&data)))
        .app_data(data)
        .service(
            scope("")
                .service(health::health)
                .map(|docs| docs.configure(api_docs))
                .service(posters::routes::request_otp)
                .service(posters::routes::verify_otp)
                .service(posters::routes::logout)
                .service(posters::routes::profile)
                .service(posters::routes::update_profile)
                .service(posters::routes::referral_code)
                .service(posters::routes::poster_stats)
                .service(posters::routes::set_device_token)
                .service(posters::routes::delete_device_token)
                .service(money::routes::balance)
                .service(money::routes::transactions)
                // Literal segments before `/transactions/{code}`.
                .service(money::routes::pending_amount)
                .service(money::routes::withdraw)
                .service(money::routes::transaction)
                .service(subscriptions::routes::subscribe)
                .service(subscriptions::routes::list_subscriptions)
                .service(subscriptions::routes::one_subscription)
                .service(subscriptions::routes::subscription_video)
                .service(media::routes::video_file)
                .service(media::routes::staff_file)
                .service(console::console_root)
                .service(console::console_page)
                .service(console::console_script)
                .service(console::console_style)
                .service(screenshots::routes::submit_screenshot)
                .service(screenshots::routes::list_screenshots)
                .service(screenshots::routes::one_screenshot)
                .service(screenshots::routes::screenshot_status)
                .service(ads::routes::list_ads)
                .service(ads::routes::trending_ads)
                .service(ads::routes::one_ad)
                .service(ads::routes::ad_stats)
                .service(places::routes::categories)
                .service(places::routes::one_category)
                .service(places::routes::countries)
                // `/countries/{id}/cities` has two segments: no clash with `/countries/{code}`.
                .service(places::routes::cities)
                .service(places::routes::country)
                .service(support::routes::create_ticket)
                .service(support::routes::tickets)
                .service(support::routes::ticket)
                .service(support::routes::add_message)
                .service(support::routes::close_ticket)
                .service(advertisers::routes::signup)
                .service(advertisers::routes::verify_email)
                .service(advertisers::routes::login)
                .service(advertisers::routes::logout)
                .service(advertisers::routes::forgot_password)
                .service(advertisers::routes::reset_password)
                .service(advertisers::routes::profile)
                .service(advertisers::routes::update_profile)
                // Administration (issue 22).
                .service(staff::routes::admin_login)
                .service(staff::routes::admin_logout)
                .service(staff::routes::totp_enrol)
                .service(staff::routes::totp_confirm)
                .service(staff::routes::totp_disable)
                .service(posters::moderation::list_users)
                .service(posters::moderation::one_user)
                .service(posters::moderation::update_user)
                .service(posters::moderation::ban_user)
                .service(posters::moderation::unban_user)
                .service(posters::moderation::user_transactions)
                .service(ads::moderation::admin_list_ads)
                .service(ads::moderation::admin_one_ad)
                .service(ads::moderation::approve_ad)
                .service(ads::moderation::pause_ad)
                .service(ads::moderation::reject_ad)
                .service(ads::moderation::delete_ad)
                .service(screenshots::moderation::queue)
                // Literal `bulk-approve` before `/{id}/…`: different segment counts anyway.
                .service(screenshots::moderation::bulk_approve)
                .service(screenshots::moderation::admin_one_screenshot)
                .service(screenshots::moderation::approve_screenshot)
                .service(screenshots::moderation::reject_screenshot)
                .service(money::admin::finance_transactions)
                .service(money::admin::finance_deposits)
                .service(money::admin::finance_invoices)
                .service(money::admin::finance_withdrawals)
                .service(money::admin::process_withdrawal)
                .service(staff::insights::overview)
                .service(staff::insights::advertisers)
                .service(advertisers::suspension::suspend)
                .service(advertisers::suspension::unsuspend)
                .service(staff::insights::system)
                .service(staff::insights::dashboard_metrics)
                .service(support::admin::admin_tickets)
                .service(support::admin::admin_reply)
                .service(support::admin::admin_ticket)
                .service(support::admin::admin_close_ticket)
                // Literal segments before `/api/campaign-payments/{id}`.
                .service(payments::routes::create_checkout)
                .service(payments::routes::payment_webhook)
                .service(payments::routes::sandbox_page)
                .service(payments::routes::sandbox_decide)
                .service(payments::routes::payment)
                .service(payments::routes::list_invoices)
                .service(payments::routes::invoice_pdf)
                .service(advertisers::routes::balance)
                .service(campaigns::routes::create_campaign)
                .service(campaigns::routes::list_campaigns)
                .service(campaigns::routes::campaign_stats)
                .service(campaigns::routes::create_ad)
                .service(campaigns::routes::update_ad)
                .default_service(web::to(fallback)),
        );
}
