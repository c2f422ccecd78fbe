//! `GET /vin/lookup/{vin}` (dealers and administrators): what the VIN itself says, from the
//! offline decoder ([`super::vin`]). The model is not encoded in a VIN in any standard way, so
//! it is null unless a provider knows it.

use super::dto::{ok, Success};
use super::error::{MarketplaceError, Result};
use super::openapi::Errors;
use super::vin::{Decoded, Vin};
use super::MarketplaceState;
use crate::core::auth::{Bearer, DealerOrAdminRole};
use actix_web::{get, web, HttpResponse};
use chrono::Datelike;
use serde::Serialize;
use utoipa::ToSchema;

/// The spec's VIN result, with what else the VIN says.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VinResult {
    pub vin: String,
    pub make: Option<&'static str>,
    pub model: Option<String>,
    pub year: Option<i32>,
    pub body_type: Option<&'static str>,
    pub engine_type: Option<&'static str>,
    pub transmission: Option<&'static str>,
    pub fuel_type: Option<&'static str>,
    pub manufacturer: Option<&'static str>,
    pub country: Option<&'static str>,
    pub region: &'static str,
    /// Whether position 9 is the 49 CFR 565 check digit (required in North America only).
    pub check_digit_valid: bool,
    pub wmi: String,
    pub plant_code: String,
    pub serial: String,
}

impl From<Decoded> for VinResult {
    fn from(d: Decoded) -> Self {
        Self {
            vin: d.vin,
            make: d.make,
            model: None,
            year: d.model_year,
            body_type: d.body,
            engine_type: d.engine,
            transmission: d.transmission,
            fuel_type: d.fuel_type,
            manufacturer: d.manufacturer,
            country: d.country,
            region: d.region,
            check_digit_valid: d.check_digit_valid,
            wmi: d.wmi,
            plant_code: d.plant_code,
            serial: d.serial,
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
    let parsed =
        Vin::parse(&vin).map_err(|e| MarketplaceError::invalid(e.field(), &vin, e.message()))?;
    let decoded = parsed.decode(st.core.now().year());
    Ok(HttpResponse::Ok().json(ok(VinResult::from(decoded))))
}
