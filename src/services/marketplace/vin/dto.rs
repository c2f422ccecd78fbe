//! The VIN lookup's wire shape.

use crate::services::marketplace::vin::domain::Decoded;
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
