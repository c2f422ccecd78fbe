//! Car marketplace (`specs/car-marketplace.md`): phone-verified accounts with roles (user,
//! dealer, admin), car listings and their search, interactions, customers, dealers, the
//! catalogue, VIN lookups, direct messages, AI helpers and a sandbox. One folder per feature
//! (`routes.rs` handlers, `dto.rs` wire shapes, `domain.rs` parsing and rules, `store.rs`
//! database work); the files here serve them all (state, auth, wire shapes, shared parsing,
//! errors, settings, limits, the live socket, the document, health). This file only
//! registers them: the listener, the routes in matching order, and the recurring jobs.

mod accounts;
mod ai;
mod auth;
mod cars;
mod catalogue;
mod cli;
mod clock_text;
mod customers;
mod dealers;
mod domain;
mod error;
mod health;
mod interactions;
mod limits;
mod messages;
mod openapi;
pub mod sandbox;
pub mod settings;
mod socket;
mod state;
pub mod vin;
mod wire;

use crate::core::admin::{AdminContext, AdminRun};
use crate::core::clock::ActorClock;
use crate::core::config::ConfigError;
use crate::core::http::api_docs;
use crate::core::placement;
use crate::core::routes::fallback;
use crate::core::server::{serve_marked, Listening, MountError};
use crate::core::service::Service;
use crate::core::session::Sessions;
use crate::core::versioning::require_version;
use crate::core::CoreContext;
use crate::providers::Providers;
use crate::realtime::{self, RedisAdapterConfig, SocketIoConfig, SocketIoServer};
use actix_web::middleware::from_fn;
use actix_web::web;
use futures_util::future::BoxFuture;
use settings::MarketplaceSettings;
use state::MarketplaceState;
use std::sync::Arc;
use std::time::Duration;
use switchboard_actors::marketplace::{Conversations, Deps, UserFeed, CONVERSATION_KIND};
use utoipa_actix_web::scope;
use utoipa_actix_web::service_config::ServiceConfig;

pub use accounts::store::create_admin;
pub use error::MarketplaceEnvelope;

/// A conversation actor without a command for this long stops (the database keeps all).
const CONVERSATION_IDLE: Duration = Duration::from_secs(300);

pub struct Marketplace;

impl Service for Marketplace {
    const NAME: &'static str = "marketplace";
    type Settings = MarketplaceSettings;
    type Providers = Providers;

    fn validate(cfg: &MarketplaceSettings) -> Result<(), ConfigError> {
        cfg.check()
    }

    fn admin_commands(admin: clap::Command) -> clap::Command {
        cli::commands(admin)
    }

    fn run_admin<'a>(
        admin: &'a clap::ArgMatches,
        ctx: AdminContext<'a>,
        _cfg: &'a MarketplaceSettings,
        _providers: &'a Providers,
    ) -> Option<AdminRun<'a>> {
        cli::run(admin, ctx)
    }

    fn mount(
        core: &CoreContext,
        providers: &Providers,
        cfg: &MarketplaceSettings,
    ) -> Result<Listening, MountError> {
        listen(Self::NAME, &cfg.bind, core, providers, cfg, &[])
    }

    /// The sandbox (test mode) on a database of its own, when configured.
    fn companions<'a>(
        core: &'a CoreContext,
        providers: &'a Providers,
        cfg: &'a MarketplaceSettings,
    ) -> BoxFuture<'a, Result<Vec<Listening>, MountError>> {
        Box::pin(async move {
            let Some((ctx, providers)) = sandbox::context(core, providers, cfg).await? else {
                return Ok(Vec::new());
            };
            let bind = &cfg.sandbox.bind;
            let marks = &[sandbox::TEST_MODE_HEADER];
            Ok(vec![listen(
                sandbox::NAME,
                bind,
                &ctx,
                &providers,
                cfg,
                marks,
            )?])
        })
    }
}

/// The marketplace on `bind` over `core` (its database), every response carrying `marks`.
fn listen(
    name: &'static str,
    bind: &str,
    core: &CoreContext,
    providers: &Providers,
    cfg: &MarketplaceSettings,
    marks: &[(&'static str, &'static str)],
) -> Result<Listening, MountError> {
    let sessions = Sessions::new(
        accounts::tokens::Source(core.db.clone()),
        &core.settings.auth,
    )
    .across(&core.cluster.bus, name);
    let live = socket::Live::new(
        auth::policy(core, sessions.clone()),
        sessions.clone(),
        core.clock.clone(),
        core.settings.auth.session_cache_secs,
    );
    let sio = SocketIoServer::builder(SocketIoConfig::from_settings(&core.settings.realtime))
        .namespace("/", live)
        .redis_adapter(RedisAdapterConfig::from_settings(
            &core.settings.cluster,
            &core.settings.realtime,
            name,
            &providers.roots,
        ))
        .build();
    socket::close_ended_sessions(sio.clone(), &sessions);
    let feed: Arc<dyn UserFeed> = Arc::new(socket::SocketFeed(sio.clone()));
    let state = MarketplaceState {
        core: core.clone(),
        providers: providers.clone(),
        cfg: Arc::new(cfg.clone()),
        catalogue: Arc::default(),
        catalogue_names: catalogue::names::NamesCache::default(),
        vin: vin::provider::from_settings(&cfg.vin, providers.http.clone()),
        conversations: Conversations::new(
            Deps {
                db: core.db.clone(),
                clock: Arc::new(ActorClock(core.clock.clone())),
                feed: feed.clone(),
                idle: CONVERSATION_IDLE,
            },
            core.placement(name, CONVERSATION_KIND),
        ),
        feed,
        sessions,
    };
    let conversations = state.conversations.clone();
    core.metrics.actors(name, CONVERSATION_KIND, {
        let conversations = conversations.clone();
        move || conversations.live()
    });
    placement::serve(core, name, CONVERSATION_KIND, move |id, command| {
        let conversations = conversations.clone();
        Box::pin(async move { conversations.run_forwarded(id, command).await })
    });
    // The catalogue is filled at start; a reader that comes first waits for it.
    let filling = state.clone();
    tokio::spawn(async move {
        if let Err(e) = catalogue::store::ready(&filling).await {
            tracing::warn!(error = %e, "marketplace catalogue not filled yet; retried on use");
        }
    });
    register_jobs(&state);
    let data = web::Data::new(state);
    serve_marked::<MarketplaceEnvelope, _>(
        name,
        bind,
        core,
        openapi::document(),
        move |cfg| routes(cfg, data.clone(), sio.clone()),
        marks,
    )
}

/// Recurring jobs (once per interval across all nodes): codes a day past their expiry go.
fn register_jobs(state: &MarketplaceState) {
    let st = state.clone();
    state.core.jobs.every(
        "marketplace.otp_purge",
        std::time::Duration::from_secs(state.core.settings.retention.interval_secs),
        move |_| {
            let st = st.clone();
            async move {
                let stale = st.core.now() - chrono::Duration::days(1);
                crate::core::jobs::counted(
                    accounts::otp::codes(&st)
                        .purge_expired(&st.core.db, stale)
                        .await,
                )
            }
        },
    );
}

fn routes(cfg: &mut ServiceConfig, data: web::Data<MarketplaceState>, sio: SocketIoServer) {
    cfg.app_data(web::Data::new(auth::policy(
        &data.core,
        data.sessions.clone(),
    )))
    .app_data(web::Data::new(limits::limits(&data)))
    .app_data(data)
    // Socket.IO speaks its own protocol: outside the versioned API scope.
    .map(|c| c.service(realtime::scope(sio)))
    .service(
        scope("")
            .wrap(from_fn(require_version::<1>))
            .service(health::health)
            .map(|docs| docs.configure(api_docs))
            .service(accounts::routes::signup)
            .service(accounts::routes::verify_signup)
            .service(accounts::routes::login)
            .service(accounts::routes::refresh_token)
            .service(accounts::routes::me)
            .service(accounts::routes::logout)
            .service(accounts::routes::forgot_password)
            .service(accounts::routes::verify_forgot_password)
            .service(accounts::routes::reset_password)
            .service(accounts::routes::resend_otp)
            .service(dealers::routes::apply)
            .service(dealers::routes::status)
            // Literal segments (admin, profile, stats, export) before `/dealers/{id}`.
            .service(dealers::routes::pending)
            .service(dealers::listings::routes::stats)
            .service(dealers::listings::routes::export)
            .service(dealers::profiles::routes::profile)
            .service(dealers::profiles::routes::update_profile)
            .service(dealers::profiles::routes::hours)
            .service(dealers::profiles::routes::set_hours)
            .service(dealers::profiles::routes::set_info)
            .service(dealers::profiles::routes::all)
            .service(dealers::profiles::routes::one)
            .service(dealers::listings::routes::dealer_cars)
            .service(dealers::routes::approve)
            .service(dealers::reviews::routes::list_reviews)
            .service(dealers::reviews::routes::review)
            .service(vin::routes::lookup)
            .service(ai::routes::generate_listing)
            .service(ai::routes::enhance_description)
            .service(ai::routes::search_natural_language)
            .service(ai::routes::recommendations)
            .service(ai::routes::pricing_insights)
            .service(ai::routes::generate_car_description)
            .service(ai::routes::lifestyle_recommendations)
            .service(cars::routes::browse)
            .service(cars::routes::facets)
            .service(cars::routes::advanced_search)
            .service(cars::routes::my_cars)
            .service(cars::routes::create)
            // Literal segments before `/cars/{id}`.
            .service(catalogue::routes::makes)
            .service(catalogue::routes::models)
            .service(catalogue::routes::body_types)
            .service(catalogue::routes::features)
            .service(catalogue::routes::template)
            .service(cars::stats::routes::trending)
            .service(cars::stats::routes::stats_batch)
            .service(customers::routes::user_liked)
            .service(interactions::routes::like_comment)
            .service(interactions::routes::reply)
            .service(customers::routes::favorites)
            .service(customers::routes::add_favorite)
            .service(customers::routes::remove_favorite)
            .service(customers::routes::inquire)
            .service(customers::routes::inquiries)
            .service(customers::routes::viewed_cars)
            .service(customers::routes::liked_cars)
            // `/cars/{id}` after every one-segment literal under /cars.
            .service(cars::routes::get_one)
            .service(cars::routes::update)
            .service(cars::routes::remove)
            .service(interactions::routes::like)
            .service(interactions::routes::views)
            .service(interactions::routes::record_view)
            .service(interactions::routes::comments)
            .service(interactions::routes::comment)
            .service(interactions::routes::share)
            .service(interactions::routes::test_drive)
            .service(interactions::routes::test_drives)
            .service(cars::stats::routes::analytics)
            // Literal segments (send, conversations, unread-count) before ids.
            .service(messages::routes::send)
            .service(messages::routes::conversations)
            .service(messages::routes::unread_total)
            .service(messages::routes::unread_with)
            .service(messages::routes::read_all)
            .service(messages::routes::messages)
            .service(messages::routes::read_one)
            .default_service(web::to(fallback)),
    );
}
