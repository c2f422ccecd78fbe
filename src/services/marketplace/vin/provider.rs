//! Where a VIN lookup is answered from (`[services.marketplace.vin]`): the built-in decoder
//! alone, or a NHTSA vPIC compatible service (`DecodeVinValues/{vin}?format=json`) whose
//! facts are laid over the built-in ones. Any failure of the online service — an error, a
//! timeout, an answer that cannot be read or that says nothing — is logged and answered from
//! the built-in decoder, so a lookup never fails because a third party did.

use crate::services::marketplace::catalogue::data;
use crate::services::marketplace::settings::{VinProviderKind, VinSettings};
use crate::services::marketplace::vin::domain::Vin;
use crate::services::marketplace::vin::dto::VinResult;
use async_trait::async_trait;
use serde::Deserialize;
use std::sync::Arc;
use std::time::Duration;

/// Decodes a VIN that parsed (invalid ones never reach a decoder).
#[async_trait]
pub trait VinDecoder: Send + Sync {
    async fn decode(&self, vin: &Vin, current_year: i32) -> VinResult;
}

pub fn from_settings(cfg: &VinSettings, http: reqwest::Client) -> Arc<dyn VinDecoder> {
    match cfg.provider {
        VinProviderKind::Offline => Arc::new(Offline),
        VinProviderKind::Vpic => Arc::new(Vpic {
            http,
            base_url: cfg.base_url.trim_end_matches('/').to_owned(),
            timeout: Duration::from_millis(cfg.timeout_ms),
        }),
    }
}

/// The built-in decoder ([`super::domain`]).
pub struct Offline;

#[async_trait]
impl VinDecoder for Offline {
    async fn decode(&self, vin: &Vin, current_year: i32) -> VinResult {
        VinResult::from(vin.decode(current_year))
    }
}

/// A vPIC compatible service.
pub struct Vpic {
    http: reqwest::Client,
    base_url: String,
    timeout: Duration,
}

#[derive(Debug, thiserror::Error)]
enum VpicError {
    #[error("request failed: {0}")]
    Request(#[from] reqwest::Error),
    #[error("answered status {0}")]
    Status(u16),
    #[error("answered no facts")]
    Empty,
}

#[async_trait]
impl VinDecoder for Vpic {
    async fn decode(&self, vin: &Vin, current_year: i32) -> VinResult {
        let offline = Offline.decode(vin, current_year).await;
        match self.fetch(vin).await {
            Ok(facts) => facts.over(offline),
            Err(e) => {
                // The VIN and the error only: the service takes no credentials.
                tracing::warn!(vin = vin.as_str(), error = %e,
                    "vPIC lookup failed; answering from the built-in decoder");
                offline
            }
        }
    }
}

impl Vpic {
    async fn fetch(&self, vin: &Vin) -> Result<Facts, VpicError> {
        let url = format!(
            "{}/DecodeVinValues/{}?format=json",
            self.base_url,
            vin.as_str()
        );
        let res = self.http.get(url).timeout(self.timeout).send().await?;
        if !res.status().is_success() {
            return Err(VpicError::Status(res.status().as_u16()));
        }
        let answer: Answer = res.json().await?;
        answer
            .results
            .into_iter()
            .next()
            .map(Facts::from)
            .filter(Facts::says_something)
            .ok_or(VpicError::Empty)
    }
}

/// The part of a `DecodeVinValues` answer that is read; vPIC writes "" for an unknown value.
#[derive(Debug, Deserialize)]
struct Answer {
    #[serde(rename = "Results", default)]
    results: Vec<Row>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Row {
    #[serde(rename = "Make")]
    make: String,
    #[serde(rename = "Model")]
    model: String,
    #[serde(rename = "ModelYear")]
    model_year: String,
    #[serde(rename = "BodyClass")]
    body_class: String,
    #[serde(rename = "DisplacementL")]
    displacement_l: String,
    #[serde(rename = "EngineCylinders")]
    engine_cylinders: String,
    #[serde(rename = "ElectrificationLevel")]
    electrification_level: String,
    #[serde(rename = "FuelTypePrimary")]
    fuel_type_primary: String,
    #[serde(rename = "FuelTypeSecondary")]
    fuel_type_secondary: String,
    #[serde(rename = "TransmissionStyle")]
    transmission_style: String,
    #[serde(rename = "Manufacturer")]
    manufacturer: String,
}

/// What the online service knows, in the marketplace's words.
#[derive(Debug, Default, PartialEq)]
struct Facts {
    make: Option<String>,
    model: Option<String>,
    year: Option<i32>,
    body_type: Option<String>,
    engine_type: Option<String>,
    transmission: Option<String>,
    fuel_type: Option<String>,
    manufacturer: Option<String>,
}

fn given(v: &str) -> Option<String> {
    let v = v.trim();
    (!v.is_empty() && v != "Not Applicable").then(|| v.to_owned())
}

impl From<Row> for Facts {
    fn from(r: Row) -> Self {
        // vPIC writes makes in capitals; the catalogue's spelling reads better.
        let make = given(&r.make).map(|m| data::make(&m).map_or(m, |k| k.name.to_owned()));
        Self {
            make,
            model: given(&r.model),
            year: given(&r.model_year).and_then(|y| y.parse().ok()),
            body_type: given(&r.body_class).map(|b| body_type(&b)),
            engine_type: engine(&r),
            transmission: given(&r.transmission_style).map(|t| transmission(&t)),
            fuel_type: fuel(&r),
            manufacturer: given(&r.manufacturer),
        }
    }
}

impl Facts {
    fn says_something(&self) -> bool {
        *self != Self::default()
    }

    /// The online facts where there are some, the built-in ones elsewhere.
    fn over(self, offline: VinResult) -> VinResult {
        VinResult {
            make: self.make.or(offline.make),
            model: self.model.or(offline.model),
            year: self.year.or(offline.year),
            body_type: self.body_type.or(offline.body_type),
            engine_type: self.engine_type.or(offline.engine_type),
            transmission: self.transmission.or(offline.transmission),
            fuel_type: self.fuel_type.or(offline.fuel_type),
            manufacturer: self.manufacturer.or(offline.manufacturer),
            source: "vpic",
            ..offline
        }
    }
}

/// vPIC's body classes in the catalogue's body types; an unknown class is kept as written.
fn body_type(class: &str) -> String {
    let c = class.to_lowercase();
    let known = [
        ("crossover", "Crossover"),
        ("sport utility", "SUV"),
        ("pickup", "Pickup"),
        ("minivan", "Minivan"),
        ("van", "Van"),
        ("convertible", "Convertible"),
        ("coupe", "Coupe"),
        ("wagon", "Wagon"),
        ("hatchback", "Hatchback"),
        ("sedan", "Sedan"),
    ];
    known
        .iter()
        .find(|(needle, _)| c.contains(needle))
        .map_or_else(|| class.to_owned(), |(_, name)| (*name).to_owned())
}

fn transmission(style: &str) -> String {
    let manual = style.to_lowercase().contains("manual");
    if manual { "Manual" } else { "Automatic" }.to_owned()
}

/// The spec's fuel types: a battery with an engine is a hybrid.
fn fuel(r: &Row) -> Option<String> {
    let primary = given(&r.fuel_type_primary)?.to_lowercase();
    let secondary = r.fuel_type_secondary.to_lowercase();
    let electrified = r.electrification_level.to_uppercase();
    let name = if primary.contains("electric") && secondary.is_empty() {
        "Electric"
    } else if secondary.contains("electric") || electrified.contains("HEV") {
        "Hybrid"
    } else if primary.contains("diesel") {
        "Diesel"
    } else if primary.contains("gasoline") || primary.contains("petrol") {
        "Petrol"
    } else {
        return given(&r.fuel_type_primary);
    };
    Some(name.to_owned())
}

/// "2.5L 4-cylinder", or what of it is known.
fn engine(r: &Row) -> Option<String> {
    let displacement = given(&r.displacement_l)
        .and_then(|d| d.parse::<f64>().ok())
        .map(|d| format!("{d:.1}L"));
    let cylinders = given(&r.engine_cylinders).map(|c| format!("{c}-cylinder"));
    let parts: Vec<String> = displacement.into_iter().chain(cylinders).collect();
    (!parts.is_empty()).then(|| parts.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(fuel: &str, secondary: &str, level: &str) -> Row {
        Row {
            fuel_type_primary: fuel.into(),
            fuel_type_secondary: secondary.into(),
            electrification_level: level.into(),
            ..Row::default()
        }
    }

    #[test]
    fn vpic_words_become_the_marketplace_words() {
        assert_eq!(body_type("Sedan/Saloon"), "Sedan");
        assert_eq!(
            body_type("Sport Utility Vehicle (SUV)/Multi-Purpose Vehicle (MPV)"),
            "SUV"
        );
        assert_eq!(body_type("Crossover Utility Vehicle (CUV)"), "Crossover");
        assert_eq!(body_type("Hatchback/Liftback/Notchback"), "Hatchback");
        assert_eq!(body_type("Bus"), "Bus");
        assert_eq!(transmission("Manual/Standard"), "Manual");
        assert_eq!(
            transmission("Continuously Variable Transmission (CVT)"),
            "Automatic"
        );
        let fuel_of = |r: Row| fuel(&r);
        assert_eq!(fuel_of(row("Gasoline", "", "")).as_deref(), Some("Petrol"));
        assert_eq!(fuel_of(row("Diesel", "", "")).as_deref(), Some("Diesel"));
        assert_eq!(
            fuel_of(row("Electric", "", "BEV (Battery Electric Vehicle)")).as_deref(),
            Some("Electric")
        );
        assert_eq!(
            fuel_of(row("Gasoline", "Electric", "PHEV")).as_deref(),
            Some("Hybrid")
        );
        assert_eq!(
            fuel_of(row("Gasoline", "", "Strong HEV (Hybrid Electric Vehicle)")).as_deref(),
            Some("Hybrid")
        );
        assert_eq!(fuel_of(row("", "", "")), None);
        let r = Row {
            displacement_l: "1.798".into(),
            engine_cylinders: "4".into(),
            ..Row::default()
        };
        assert_eq!(engine(&r).as_deref(), Some("1.8L 4-cylinder"));
        assert_eq!(engine(&Row::default()), None);
        assert!(!Facts::from(Row::default()).says_something());
    }
}
