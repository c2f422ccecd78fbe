//! `GET /vin/lookup/{vin}` (dealers and administrators): what the VIN itself says, from the
//! offline decoder ([`super::domain`]), with what the configured online provider knows over
//! it ([`super::provider`]). The model is not encoded in a VIN in any standard way: it is
//! read where a maker publishes its coding (Tesla's position 4), else null unless a provider
//! knows it.

use crate::core::auth::{Bearer, DealerOrAdminRole};
use crate::services::marketplace::error::{MarketplaceError, Result};
use crate::services::marketplace::openapi::Errors;
use crate::services::marketplace::state::MarketplaceState;
use crate::services::marketplace::vin::domain::{Decoded, Vin};
use crate::services::marketplace::wire::{ok, Success};
use actix_web::{get, web, HttpResponse};
use chrono::Datelike;
use serde::Serialize;
use utoipa::ToSchema;

/// The spec's VIN result, with what else the VIN says.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VinResult {
    pub vin: String,
    pub make: Option<String>,
    pub model: Option<String>,
    pub year: Option<i32>,
    pub body_type: Option<String>,
    pub engine_type: Option<String>,
    pub transmission: Option<String>,
    pub fuel_type: Option<String>,
    pub manufacturer: Option<String>,
    pub country: Option<&'static str>,
    pub region: &'static str,
    /// Whether position 9 is the 49 CFR 565 check digit (required in North America only).
    pub check_digit_valid: bool,
    pub wmi: String,
    pub plant_code: String,
    pub serial: String,
    /// `offline` (the built-in decoder alone) or `vpic` (the online provider answered).
    pub source: &'static str,
}

impl From<Decoded> for VinResult {
    fn from(d: Decoded) -> Self {
        let owned = |v: Option<&str>| v.map(str::to_owned);
        Self {
            vin: d.vin,
            make: owned(d.make),
            model: owned(d.model),
            year: d.model_year,
            body_type: owned(d.body),
            engine_type: owned(d.engine),
            transmission: owned(d.transmission),
            fuel_type: owned(d.fuel_type),
            manufacturer: owned(d.manufacturer),
            country: d.country,
            region: d.region,
            check_digit_valid: d.check_digit_valid,
            wmi: d.wmi,
            plant_code: d.plant_code,
            serial: d.serial,
            source: "offline",
        }
    }
}

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
