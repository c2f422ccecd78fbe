//! Car marketplace: phone-verified accounts with roles (user, dealer, admin); listings,
//! dealers and customers follow (`specs/car-marketplace.md`).

mod ai;
mod ai_dto;
mod auth;
mod car_dto;
mod car_filters;
mod cars;
mod dealers;
pub mod domain;
mod dto;
mod error;
mod health;
mod limits;
pub mod listing;
mod openapi;
mod search_terms;
pub mod service;
pub mod settings;
pub mod vin;
mod vin_lookup;

use crate::core::auth::{Auth, AuthErrors};
use crate::core::error::ApiError;
use crate::core::http::api_docs;
use crate::core::routes::fallback;
use crate::core::server::{serve, Listening, MountError};
use crate::core::service::Service;
use crate::core::versioning::require_version;
use crate::core::CoreContext;
use crate::providers::Providers;
use actix_web::middleware::from_fn;
use actix_web::web;
use settings::MarketplaceSettings;
use std::sync::Arc;
use utoipa_actix_web::scope;
use utoipa_actix_web::service_config::ServiceConfig;

pub use error::MarketplaceEnvelope;
pub use service::accounts::{create_admin, AdminError};

#[derive(Clone)]
pub struct MarketplaceState {
    pub core: CoreContext,
    pub providers: Providers,
    pub cfg: Arc<MarketplaceSettings>,
}

pub struct Marketplace;

impl Service for Marketplace {
    const NAME: &'static str = "marketplace";
    type Settings = MarketplaceSettings;
    type Providers = Providers;

    fn mount(
        core: &CoreContext,
        providers: &Providers,
        cfg: &MarketplaceSettings,
    ) -> Result<Listening, MountError> {
        let state = MarketplaceState {
            core: core.clone(),
            providers: providers.clone(),
            cfg: Arc::new(cfg.clone()),
        };
        let data = web::Data::new(state);
        serve::<MarketplaceEnvelope, _>(
            Self::NAME,
            &cfg.bind,
            core,
            openapi::document(),
            move |cfg| routes(cfg, data.clone()),
        )
    }
}

/// Bearer tokens of the marketplace, with the spec's `invalid_token`.
fn policy(core: &CoreContext) -> Auth {
    Auth::new(
        core,
        service::tokens::ACCESS_TOKEN_TYPE,
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
}

fn routes(cfg: &mut ServiceConfig, data: web::Data<MarketplaceState>) {
    cfg.app_data(web::Data::new(policy(&data.core)))
        .app_data(web::Data::new(limits::limits(&data)))
        .app_data(data)
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
                .service(auth::forgot_password)
                .service(auth::verify_forgot_password)
                .service(auth::reset_password)
                .service(auth::resend_otp)
                .service(dealers::apply)
                .service(dealers::status)
                .service(dealers::pending)
                .service(dealers::approve)
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
                // `/cars/{id}` after every one-segment literal under /cars.
                .service(cars::get_one)
                .service(cars::update)
                .service(cars::remove)
                .default_service(web::to(fallback)),
        );
}
