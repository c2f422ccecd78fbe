//! `GET /vin/lookup/{vin}` (dealers and administrators): what the VIN itself says, from the
//! offline decoder ([`super::domain`]), with what the configured online provider knows over
//! it ([`super::provider`]). The model is not encoded in a VIN in any standard way: it is
//! read where a maker publishes its coding (Tesla's position 4), else null unless a provider
//! knows it.

use crate::core::auth::{Bearer, DealerOrAdminRole};
use crate::services::marketplace::error::{MarketplaceError, Result};
use crate::services::marketplace::openapi::Errors;
use crate::services::marketplace::state::MarketplaceState;
use crate::services::marketplace::vin::domain::Vin;
use crate::services::marketplace::vin::dto::VinResult;
use crate::services::marketplace::wire::{ok, Success};
use actix_web::{get, web, HttpResponse};
use chrono::Datelike;

#[utoipa::path(tag = "vin", security(("bearer" = [])),
    params(("vin" = String, Path, description = "17 characters, no I, O or Q")),
    responses((status = 200, body = Success<VinResult>), Errors))]
#[get("/vin/lookup/{vin}")]
pub async fn lookup(
    _dealer: Bearer<DealerOrAdminRole>,
    st: web::Data<MarketplaceState>,
    vin: web::Path<String>,
) -> Result<HttpResponse> {
    // A bad VIN is refused here, before any provider is asked.
    let parsed =
        Vin::parse(&vin).map_err(|e| MarketplaceError::invalid(e.field(), &vin, e.message()))?;
    let result = st.vin.decode(&parsed, st.core.now().year()).await;
    Ok(HttpResponse::Ok().json(ok(result)))
}
