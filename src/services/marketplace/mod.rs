//! Car marketplace: phone-verified accounts with roles (user, dealer, admin); listings,
//! dealers and customers follow (`specs/car-marketplace.md`).

mod ai;
mod ai_dto;
mod auth;
mod business_hours;
mod car_dto;
mod car_filters;
mod car_stats;
mod cars;
pub mod catalogue;
mod clock_text;
mod csv_cells;
mod customers;
mod dealer_listings;
mod dealer_profiles;
mod dealers;
pub mod domain;
mod dto;
mod error;
mod health;
mod interaction_domain;
mod interaction_dto;
mod interactions;
mod limits;
pub mod listing;
mod message_dto;
mod messages;
mod openapi;
mod reviews;
pub mod sandbox;
mod search_terms;
pub mod service;
pub mod settings;
mod socket;
mod verified;
pub mod vin;
mod vin_lookup;
pub mod vin_provider;

use crate::core::auth::{Auth, AuthErrors};
use crate::core::clock::ActorClock;
use crate::core::config::ConfigError;
use crate::core::error::ApiError;
use crate::core::http::api_docs;
use crate::core::routes::fallback;
use crate::core::server::{serve_marked, Listening, MountError};
use crate::core::service::Service;
use crate::core::session::Sessions;
use crate::core::versioning::require_version;
use crate::core::CoreContext;
use crate::providers::Providers;
use crate::realtime::{self, SocketIoConfig, SocketIoServer};
use actix_web::middleware::from_fn;
use actix_web::web;
use futures_util::future::BoxFuture;
use settings::MarketplaceSettings;
use std::sync::Arc;
use std::time::Duration;
use switchboard_actors::marketplace::{Conversations, Deps, UserFeed};
use utoipa_actix_web::scope;
use utoipa_actix_web::service_config::ServiceConfig;

pub use error::MarketplaceEnvelope;
pub use service::accounts::create_admin;

#[derive(Clone)]
pub struct MarketplaceState {
    pub core: CoreContext,
    pub providers: Providers,
    pub cfg: Arc<MarketplaceSettings>,
    /// Set once the catalogue is filled ([`service::catalogue::ready`]).
    pub catalogue: Arc<tokio::sync::OnceCell<()>>,
    /// The catalogue's names the search corrects words to ([`service::catalogue::names`]).
    pub catalogue_names: service::catalogue::NamesCache,
    /// Where VIN lookups are answered from (`[services.marketplace.vin]`).
    pub vin: Arc<dyn vin_provider::VinDecoder>,
    /// The conversation actors, which write messages and receipts.
    pub conversations: Conversations,
    /// Live events to a user's sockets.
    pub feed: Arc<dyn UserFeed>,
    /// Which sessions are live (every bearer request and socket asks; every change announces).
    pub sessions: Arc<Sessions>,
}

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
            Ok(sandbox::start(core, providers, cfg)
                .await?
                .into_iter()
                .collect())
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
    let sessions = Arc::new(Sessions::new(
        service::tokens::Source(core.db.clone()),
        &core.settings.auth,
    ));
    let live = socket::Live::new(
        policy(core, sessions.clone()),
        sessions.clone(),
        core.clock.clone(),
        core.settings.auth.session_cache_secs,
    );
    let sio = SocketIoServer::builder(SocketIoConfig::from_settings(&core.settings.realtime))
        .namespace("/", live)
        .build();
    socket::close_ended_sessions(sio.clone(), &sessions);
    let feed: Arc<dyn UserFeed> = Arc::new(socket::SocketFeed(sio.clone()));
    let state = MarketplaceState {
        core: core.clone(),
        providers: providers.clone(),
        cfg: Arc::new(cfg.clone()),
        catalogue: Arc::default(),
        catalogue_names: service::catalogue::NamesCache::default(),
        vin: vin_provider::from_settings(&cfg.vin, providers.http.clone()),
        conversations: Conversations::new(Deps {
            db: core.db.clone(),
            clock: Arc::new(ActorClock(core.clock.clone())),
            feed: feed.clone(),
            idle: CONVERSATION_IDLE,
        }),
        feed,
        sessions,
    };
    // The catalogue is filled at start; a reader that comes first waits for it.
    let filling = state.clone();
    tokio::spawn(async move {
        if let Err(e) = service::catalogue::ready(&filling).await {
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
                    service::otp::codes(&st)
                        .purge_expired(&st.core.db, stale)
                        .await,
                )
            }
        },
    );
}

/// Bearer tokens of the marketplace, with the spec's `invalid_token`; their sessions must be
/// live.
fn policy(core: &CoreContext, sessions: Arc<Sessions>) -> Auth {
    Auth::new(
        core,
        &[service::tokens::ACCESS_TOKEN_TYPE],
        AuthErrors {
            missing: |what| {
                ApiError::unauthorized(format!("missing {what}: Bearer <access token>"))
                    .code("invalid_token")
            },
            invalid_token: |_| {
                ApiError::unauthorized("access token is invalid or expired").code("invalid_token")
            },
            forbidden: |_| ApiError::forbidden("your role does not allow this operation"),
            invalid_key: |what| ApiError::unauthorized(format!("invalid {what}")),
        },
    )
    .with_sessions(sessions)
}

fn routes(cfg: &mut ServiceConfig, data: web::Data<MarketplaceState>, sio: SocketIoServer) {
    cfg.app_data(web::Data::new(policy(&data.core, data.sessions.clone())))
        .app_data(web::Data::new(limits::limits(&data)))
        .app_data(data)
        // Socket.IO speaks its own protocol: outside the versioned API scope.
        .map(|c| c.service(realtime::scope(sio)))
        .service(
            scope("")
                .wrap(from_fn(require_version::<1>))
                .service(health::health)
                .map(|docs| docs.configure(api_docs))
                .service(auth::signup)
                .service(auth::verify_signup)
                .service(auth::login)
                .service(auth::refresh_token)
                .service(auth::me)
                .service(auth::logout)
                .service(auth::forgot_password)
                .service(auth::verify_forgot_password)
                .service(auth::reset_password)
                .service(auth::resend_otp)
                .service(dealers::apply)
                .service(dealers::status)
                // Literal segments (admin, profile, stats, export) before `/dealers/{id}`.
                .service(dealers::pending)
                .service(dealer_listings::stats)
                .service(dealer_listings::export)
                .service(dealer_profiles::profile)
                .service(dealer_profiles::update_profile)
                .service(dealer_profiles::hours)
                .service(dealer_profiles::set_hours)
                .service(dealer_profiles::set_info)
                .service(dealer_profiles::all)
                .service(dealer_profiles::one)
                .service(dealer_listings::dealer_cars)
                .service(dealers::approve)
                .service(reviews::list_reviews)
                .service(reviews::review)
                .service(vin_lookup::lookup)
                .service(ai::generate_listing)
                .service(ai::enhance_description)
                .service(ai::search_natural_language)
                .service(ai::recommendations)
                .service(ai::pricing_insights)
                .service(ai::generate_car_description)
                .service(ai::lifestyle_recommendations)
                .service(cars::browse)
                .service(cars::facets)
                .service(cars::advanced_search)
                .service(cars::my_cars)
                .service(cars::create)
                // Literal segments before `/cars/{id}`.
                .service(catalogue::makes)
                .service(catalogue::models)
                .service(catalogue::body_types)
                .service(catalogue::features)
                .service(catalogue::template)
                .service(car_stats::trending)
                .service(car_stats::stats_batch)
                .service(customers::user_liked)
                .service(interactions::like_comment)
                .service(interactions::reply)
                .service(customers::favorites)
                .service(customers::add_favorite)
                .service(customers::remove_favorite)
                .service(customers::inquire)
                .service(customers::inquiries)
                .service(customers::viewed_cars)
                .service(customers::liked_cars)
                // `/cars/{id}` after every one-segment literal under /cars.
                .service(cars::get_one)
                .service(cars::update)
                .service(cars::remove)
                .service(interactions::like)
                .service(interactions::views)
                .service(interactions::record_view)
                .service(interactions::comments)
                .service(interactions::comment)
                .service(interactions::share)
                .service(interactions::test_drive)
                .service(interactions::test_drives)
                .service(car_stats::analytics)
                // Literal segments (send, conversations, unread-count) before ids.
                .service(messages::send)
                .service(messages::conversations)
                .service(messages::unread_total)
                .service(messages::unread_with)
                .service(messages::read_all)
                .service(messages::messages)
                .service(messages::read_one)
                .default_service(web::to(fallback)),
        );
}
