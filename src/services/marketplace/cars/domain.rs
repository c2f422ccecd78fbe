//! A car listing's fields as the spec allows them: each parser answers a value that obeys its
//! rule or a `validation_error` naming the field and the value sent.

use crate::services::marketplace::domain::{required, text};
use crate::services::marketplace::error::MarketplaceError;
use crate::services::marketplace::wire::Scalar;
use serde::Deserialize;
pub use switchboard_entities::marketplace::car::CarStatus;
use switchboard_entities::Words;

pub const MAX_IMAGES: usize = 20;
pub const MAX_VIDEOS: usize = 10;
pub const MAX_FEATURES: usize = 50;
pub const MIN_YEAR: i64 = 1900;
pub const MAX_YEAR: i64 = 2026;
/// Odometers end here; a larger reading is a typo.
pub const MAX_MILEAGE: i64 = 2_000_000;
/// No car costs more; a larger price is a typo (or a unit mistake).
pub const MAX_PRICE: f64 = 100_000_000.0;
const MAX_URL_CHARS: usize = 2048;

/// A closed set of spellings: parsed case-insensitively, stored in the spec's spelling.
pub struct Choice {
    pub field: &'static str,
    pub values: &'static [&'static str],
}

impl Choice {
    pub fn parse(&self, raw: &str) -> Result<&'static str, MarketplaceError> {
        let v = raw.trim();
        self.values
            .iter()
            .find(|c| c.eq_ignore_ascii_case(v))
            .copied()
            .ok_or_else(|| self.refusal(raw))
    }

    /// The value of `T` whose word `raw` spells, in any case (a choice of `T::WORDS`).
    pub fn state<T: Words>(&self, raw: &str) -> Result<T, MarketplaceError> {
        T::parse(self.parse(raw)?).ok_or_else(|| self.refusal(raw))
    }

    fn refusal(&self, raw: &str) -> MarketplaceError {
        MarketplaceError::invalid(
            self.field,
            raw,
            format!("{} must be one of {}", self.field, self.values.join(", ")),
        )
    }
}

pub const FUEL_TYPE: Choice = Choice {
    field: "fuelType",
    values: &["Petrol", "Diesel", "Electric", "Hybrid"],
};
pub const TRANSMISSION: Choice = Choice {
    field: "transmission",
    values: &["Manual", "Automatic"],
};
/// The spec shows examples only; these are the body styles listing sites offer.
pub const BODY_TYPE: Choice = Choice {
    field: "bodyType",
    values: &[
        "Sedan",
        "SUV",
        "Hatchback",
        "Coupe",
        "Convertible",
        "Pickup",
        "Wagon",
        "Van",
        "Minivan",
        "Crossover",
    ],
};
pub const CONDITION: Choice = Choice {
    field: "condition",
    values: &["New", "Used", "Certified Pre-Owned"],
};
pub const STATUS: Choice = Choice {
    field: "status",
    values: CarStatus::WORDS,
};
pub const SELLER_TYPE: Choice = Choice {
    field: "sellerType",
    values: &["dealer", "private"],
};

pub fn year(v: &Scalar) -> Result<i32, MarketplaceError> {
    let y = v.integer("year")?;
    if !(MIN_YEAR..=MAX_YEAR).contains(&y) {
        return Err(MarketplaceError::invalid(
            "year",
            &v.raw(),
            format!("year must be between {MIN_YEAR} and {MAX_YEAR}"),
        ));
    }
    Ok(y as i32)
}

pub fn mileage(v: &Scalar) -> Result<i64, MarketplaceError> {
    let m = v.integer("mileage")?;
    if !(0..=MAX_MILEAGE).contains(&m) {
        return Err(MarketplaceError::invalid(
            "mileage",
            &v.raw(),
            format!("mileage must be between 0 and {MAX_MILEAGE} km"),
        ));
    }
    Ok(m)
}

/// A price: 0 to 100 million, kept to cents.
pub fn price(field: &'static str, v: &Scalar) -> Result<f64, MarketplaceError> {
    let p = v.number(field)?;
    if !(0.0..=MAX_PRICE).contains(&p) {
        return Err(MarketplaceError::invalid(
            field,
            &v.raw(),
            format!("{field} must be between 0 and {MAX_PRICE}"),
        ));
    }
    Ok((p * 100.0).round() / 100.0)
}

/// Image and video links: absolute http(s) URLs, at most `max` of them.
pub fn urls(
    field: &'static str,
    list: &[String],
    max: usize,
) -> Result<Vec<String>, MarketplaceError> {
    if list.len() > max {
        return Err(MarketplaceError::invalid(
            field,
            &format!("{} entries", list.len()),
            format!("{field} may hold at most {max} entries"),
        ));
    }
    list.iter()
        .map(|raw| {
            let v = raw.trim();
            let ok = v.chars().count() <= MAX_URL_CHARS
                && url::Url::parse(v).is_ok_and(|u| {
                    matches!(u.scheme(), "http" | "https") && u.host_str().is_some()
                });
            if ok {
                Ok(v.to_owned())
            } else {
                Err(MarketplaceError::invalid(
                    field,
                    raw,
                    format!("each of {field} must be an http or https URL"),
                ))
            }
        })
        .collect()
}

/// Features: at most 50 short texts, duplicates (ignoring case) dropped, order kept.
pub fn features(list: &[String]) -> Result<Vec<String>, MarketplaceError> {
    if list.len() > MAX_FEATURES {
        return Err(MarketplaceError::invalid(
            "features",
            &format!("{} entries", list.len()),
            format!("features may hold at most {MAX_FEATURES} entries"),
        ));
    }
    let mut out: Vec<String> = Vec::with_capacity(list.len());
    for raw in list {
        let f = text("features", raw, 100)?;
        if !out.iter().any(|o| o.eq_ignore_ascii_case(&f)) {
            out.push(f);
        }
    }
    Ok(out)
}

/// The fields of `POST /cars` (and, all optional, of `PUT /cars/{id}`).
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CarFields {
    pub make: Option<String>,
    pub model: Option<String>,
    /// 1900 to 2026.
    #[schema(value_type = Option<i32>)]
    pub year: Option<Scalar>,
    /// Kilometres.
    #[schema(value_type = Option<i64>)]
    pub mileage: Option<Scalar>,
    /// Petrol, Diesel, Electric or Hybrid.
    pub fuel_type: Option<String>,
    /// Manual or Automatic.
    pub transmission: Option<String>,
    /// Sedan, SUV, Hatchback, Coupe, Convertible, Pickup, Wagon, Van, Minivan or Crossover.
    pub body_type: Option<String>,
    pub color: Option<String>,
    pub description: Option<String>,
    /// New, Used or Certified Pre-Owned.
    pub condition: Option<String>,
    /// Default 0.
    #[schema(value_type = Option<f64>)]
    pub price: Option<Scalar>,
    /// At most 20 http(s) URLs.
    pub images: Option<Vec<String>>,
    /// At most 10 http(s) URLs.
    pub videos: Option<Vec<String>>,
    /// At most 50 entries.
    pub features: Option<Vec<String>>,
    /// active (default), sold or reserved.
    pub status: Option<String>,
}

/// A listing's own facts, every one checked.
#[derive(Debug, Clone)]
pub struct Listing {
    pub make: String,
    pub model: String,
    pub year: i32,
    pub mileage: i64,
    pub fuel_type: &'static str,
    pub transmission: &'static str,
    pub body_type: &'static str,
    pub color: String,
    pub description: String,
    pub condition: &'static str,
    pub price: f64,
    pub images: Vec<String>,
    pub videos: Vec<String>,
    pub features: Vec<String>,
    pub status: CarStatus,
}

fn scalar<'a>(field: &'static str, v: &'a Option<Scalar>) -> Result<&'a Scalar, MarketplaceError> {
    v.as_ref().ok_or_else(|| MarketplaceError::Validation {
        field,
        value: None,
        message: format!("{field} is required"),
    })
}

/// Each field of `f` that was sent, checked; `None` where it was not.
#[derive(Debug, Default)]
pub struct Patch {
    pub make: Option<String>,
    pub model: Option<String>,
    pub year: Option<i32>,
    pub mileage: Option<i64>,
    pub fuel_type: Option<&'static str>,
    pub transmission: Option<&'static str>,
    pub body_type: Option<&'static str>,
    pub color: Option<String>,
    pub description: Option<String>,
    pub condition: Option<&'static str>,
    pub price: Option<f64>,
    pub images: Option<Vec<String>>,
    pub videos: Option<Vec<String>>,
    pub features: Option<Vec<String>>,
    pub status: Option<CarStatus>,
}

impl Patch {
    pub fn parse(f: &CarFields) -> Result<Self, MarketplaceError> {
        let patch = Self {
            make: f.make.as_deref().map(|v| text("make", v, 50)).transpose()?,
            model: f
                .model
                .as_deref()
                .map(|v| text("model", v, 80))
                .transpose()?,
            year: f.year.as_ref().map(year).transpose()?,
            mileage: f.mileage.as_ref().map(mileage).transpose()?,
            fuel_type: f
                .fuel_type
                .as_deref()
                .map(|v| FUEL_TYPE.parse(v))
                .transpose()?,
            transmission: f
                .transmission
                .as_deref()
                .map(|v| TRANSMISSION.parse(v))
                .transpose()?,
            body_type: f
                .body_type
                .as_deref()
                .map(|v| BODY_TYPE.parse(v))
                .transpose()?,
            color: f
                .color
                .as_deref()
                .map(|v| text("color", v, 40))
                .transpose()?,
            description: f
                .description
                .as_deref()
                .map(|v| text("description", v, 5000))
                .transpose()?,
            condition: f
                .condition
                .as_deref()
                .map(|v| CONDITION.parse(v))
                .transpose()?,
            price: f.price.as_ref().map(|p| price("price", p)).transpose()?,
            images: f
                .images
                .as_deref()
                .map(|v| urls("images", v, MAX_IMAGES))
                .transpose()?,
            videos: f
                .videos
                .as_deref()
                .map(|v| urls("videos", v, MAX_VIDEOS))
                .transpose()?,
            features: f.features.as_deref().map(features).transpose()?,
            status: f.status.as_deref().map(|v| STATUS.state(v)).transpose()?,
        };
        Ok(patch)
    }

    pub fn is_empty(&self) -> bool {
        self.make.is_none()
            && self.model.is_none()
            && self.year.is_none()
            && self.mileage.is_none()
            && self.fuel_type.is_none()
            && self.transmission.is_none()
            && self.body_type.is_none()
            && self.color.is_none()
            && self.description.is_none()
            && self.condition.is_none()
            && self.price.is_none()
            && self.images.is_none()
            && self.videos.is_none()
            && self.features.is_none()
            && self.status.is_none()
    }
}

impl Listing {
    /// A new listing: the spec's required fields present, defaults for the rest.
    pub fn parse(f: &CarFields) -> Result<Self, MarketplaceError> {
        required("make", &f.make)?;
        required("model", &f.model)?;
        scalar("year", &f.year)?;
        scalar("mileage", &f.mileage)?;
        for (field, v) in [
            ("fuelType", &f.fuel_type),
            ("transmission", &f.transmission),
            ("bodyType", &f.body_type),
            ("color", &f.color),
            ("description", &f.description),
            ("condition", &f.condition),
        ] {
            required(field, v)?;
        }
        let p = Patch::parse(f)?;
        let missing = |field: &'static str| MarketplaceError::Validation {
            field,
            value: None,
            message: format!("{field} is required"),
        };
        Ok(Self {
            make: p.make.ok_or_else(|| missing("make"))?,
            model: p.model.ok_or_else(|| missing("model"))?,
            year: p.year.ok_or_else(|| missing("year"))?,
            mileage: p.mileage.ok_or_else(|| missing("mileage"))?,
            fuel_type: p.fuel_type.ok_or_else(|| missing("fuelType"))?,
            transmission: p.transmission.ok_or_else(|| missing("transmission"))?,
            body_type: p.body_type.ok_or_else(|| missing("bodyType"))?,
            color: p.color.ok_or_else(|| missing("color"))?,
            description: p.description.ok_or_else(|| missing("description"))?,
            condition: p.condition.ok_or_else(|| missing("condition"))?,
            price: p.price.unwrap_or(0.0),
            images: p.images.unwrap_or_default(),
            videos: p.videos.unwrap_or_default(),
            features: p.features.unwrap_or_default(),
            status: p.status.unwrap_or(CarStatus::DEFAULT),
        })
    }

    /// `self` with the sent fields of `p` over it.
    pub fn apply(self, p: Patch) -> Self {
        Self {
            make: p.make.unwrap_or(self.make),
            model: p.model.unwrap_or(self.model),
            year: p.year.unwrap_or(self.year),
            mileage: p.mileage.unwrap_or(self.mileage),
            fuel_type: p.fuel_type.unwrap_or(self.fuel_type),
            transmission: p.transmission.unwrap_or(self.transmission),
            body_type: p.body_type.unwrap_or(self.body_type),
            color: p.color.unwrap_or(self.color),
            description: p.description.unwrap_or(self.description),
            condition: p.condition.unwrap_or(self.condition),
            price: p.price.unwrap_or(self.price),
            images: p.images.unwrap_or(self.images),
            videos: p.videos.unwrap_or(self.videos),
            features: p.features.unwrap_or(self.features),
            status: p.status.unwrap_or(self.status),
        }
    }

    /// The features as the full-text index reads them (beside make, model, description).
    pub fn features_text(&self) -> String {
        self.features.join(", ")
    }
}
