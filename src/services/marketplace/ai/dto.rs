//! Wire shapes of the AI helpers (camelCase). Required fields are options so a missing one
//! is named in `validation_error`.

use crate::providers::car_ai::{CarFacts, Interpretation};
use crate::services::marketplace::ai::recommend::{Profile, Wishes, PRESETS};
use crate::services::marketplace::cars::domain::{self as listing, CarFields, Patch};
use crate::services::marketplace::domain::{required, text};
use crate::services::marketplace::error::MarketplaceError;
use crate::services::marketplace::wire::Scalar;
use serde::{Deserialize, Serialize};
use switchboard_entities::marketplace::car;
use utoipa::ToSchema;

/// `POST /ai/generate-listing`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GenerateListingRequest {
    pub make: Option<String>,
    pub model: Option<String>,
    #[schema(value_type = Option<i32>)]
    pub year: Option<Scalar>,
    /// Kilometres.
    #[schema(value_type = Option<i64>)]
    pub mileage: Option<Scalar>,
    /// New, Used or Certified Pre-Owned.
    pub condition: Option<String>,
    /// At most 50.
    pub features: Option<Vec<String>>,
}

/// `POST /ai/enhance-description`: the description, and what is known of the car it is about
/// (the spec names make, model and year; the other facts of generate-car-description may be
/// sent too, and each one sent is written into the result).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EnhanceRequest {
    /// 1 to 5000 characters.
    pub description: Option<String>,
    #[serde(flatten)]
    pub car: DescribeRequest,
}

/// `POST /ai/search-natural-language`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NaturalSearchRequest {
    /// e.g. "family SUV under 30k, automatic, low mileage"; 1 to 500 characters.
    pub query: Option<String>,
    /// Results answered, default 10, at most 100.
    #[schema(minimum = 1, maximum = 100)]
    pub limit: Option<u64>,
}

/// Explicit wishes of `POST /ai/recommendations`.
#[derive(Debug, Default, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Preferences {
    pub fuel_type: Option<String>,
    pub transmission: Option<String>,
    pub body_type: Option<String>,
}

/// `POST /ai/recommendations`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecommendationsRequest {
    /// The most the buyer will pay.
    #[schema(value_type = Option<f64>)]
    pub budget: Option<Scalar>,
    pub preferences: Option<Preferences>,
    /// Free text, e.g. "I commute in the city and go camping with the kids"; at most 500
    /// characters.
    pub lifestyle: Option<String>,
}

/// `POST /ai/pricing-insights`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PricingRequest {
    pub car_id: Option<String>,
}

/// `POST /ai/generate-car-description`: make, model and year are required.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DescribeRequest {
    pub make: Option<String>,
    pub model: Option<String>,
    #[schema(value_type = Option<i32>)]
    pub year: Option<Scalar>,
    #[schema(value_type = Option<f64>)]
    pub price: Option<Scalar>,
    #[schema(value_type = Option<i64>)]
    pub mileage: Option<Scalar>,
    pub fuel_type: Option<String>,
    pub transmission: Option<String>,
    pub body_type: Option<String>,
    pub exterior_color: Option<String>,
    pub interior_color: Option<String>,
    pub condition: Option<String>,
    pub features: Option<Vec<String>>,
}

/// `POST /ai/lifestyle-recommendations`: the lifestyle quiz's answers.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LifestyleQuiz {
    /// The most the buyer will pay (required).
    #[schema(value_type = Option<f64>)]
    pub budget: Option<Scalar>,
    /// What the car is mostly for (required): family, commute, adventure, eco, business,
    /// performance or work.
    pub primary_use: Option<String>,
    /// People usually on board, 1 to 9; 6 or more favours family cars.
    #[schema(value_type = Option<i32>)]
    pub passengers: Option<Scalar>,
    /// Favour electric and hybrid cars.
    pub eco_friendly: Option<bool>,
    /// city, highway, offroad or mixed.
    pub terrain: Option<String>,
    /// Manual, Automatic or any.
    pub transmission: Option<String>,
}

fn optional(
    field: &'static str,
    v: &Option<String>,
    max: usize,
) -> Result<Option<String>, MarketplaceError> {
    v.as_deref().map(|v| text(field, v, max)).transpose()
}

fn required_scalar<'a>(
    field: &'static str,
    v: &'a Option<Scalar>,
) -> Result<&'a Scalar, MarketplaceError> {
    v.as_ref().ok_or_else(|| MarketplaceError::Validation {
        field,
        value: None,
        message: format!("{field} is required"),
    })
}

/// A budget: a price above zero.
pub fn budget(v: &Option<Scalar>) -> Result<f64, MarketplaceError> {
    let b = listing::price("budget", required_scalar("budget", v)?)?;
    if b <= 0.0 {
        return Err(MarketplaceError::invalid(
            "budget",
            &b.to_string(),
            "budget must be above 0",
        ));
    }
    Ok(b)
}

/// The facts of `f`, checked by the listing's own rules; each field of `needed` must be sent.
fn checked_facts(
    f: &CarFields,
    needed: &[&'static str],
    this_year: i32,
) -> Result<CarFacts, MarketplaceError> {
    let p = Patch::parse(f)?;
    let sent = [
        ("make", p.make.is_some()),
        ("model", p.model.is_some()),
        ("year", p.year.is_some()),
        ("mileage", p.mileage.is_some()),
        ("condition", p.condition.is_some()),
    ];
    if let Some((field, _)) = sent.iter().find(|(f, sent)| !sent && needed.contains(f)) {
        return Err(MarketplaceError::Validation {
            field,
            value: None,
            message: format!("{field} is required"),
        });
    }
    Ok(CarFacts {
        make: p.make.unwrap_or_default(),
        model: p.model.unwrap_or_default(),
        year: p.year,
        mileage: p.mileage,
        price: p.price,
        fuel_type: p.fuel_type.map(str::to_owned),
        transmission: p.transmission.map(str::to_owned),
        body_type: p.body_type.map(str::to_owned),
        exterior_color: p.color,
        interior_color: None,
        condition: p.condition.map(str::to_owned),
        features: p.features.unwrap_or_default(),
        this_year,
    })
}

impl GenerateListingRequest {
    pub fn facts(&self, this_year: i32) -> Result<CarFacts, MarketplaceError> {
        let fields = CarFields {
            make: self.make.clone(),
            model: self.model.clone(),
            year: self.year.clone(),
            mileage: self.mileage.clone(),
            condition: self.condition.clone(),
            features: self.features.clone(),
            ..Default::default()
        };
        checked_facts(
            &fields,
            &["make", "model", "year", "mileage", "condition"],
            this_year,
        )
    }
}

impl EnhanceRequest {
    /// The description and what is known of its car.
    pub fn parse(&self, this_year: i32) -> Result<(String, CarFacts), MarketplaceError> {
        let description = text(
            "description",
            required("description", &self.description)?,
            5000,
        )?;
        Ok((description, self.car.facts_with(&[], this_year)?))
    }
}

impl DescribeRequest {
    pub fn facts(&self, this_year: i32) -> Result<CarFacts, MarketplaceError> {
        self.facts_with(&["make", "model", "year"], this_year)
    }

    /// The facts sent, each field of `needed` required.
    fn facts_with(
        &self,
        needed: &[&'static str],
        this_year: i32,
    ) -> Result<CarFacts, MarketplaceError> {
        let exterior_color = optional("exteriorColor", &self.exterior_color, 40)?;
        let interior_color = optional("interiorColor", &self.interior_color, 40)?;
        let fields = CarFields {
            make: self.make.clone(),
            model: self.model.clone(),
            year: self.year.clone(),
            price: self.price.clone(),
            mileage: self.mileage.clone(),
            fuel_type: self.fuel_type.clone(),
            transmission: self.transmission.clone(),
            body_type: self.body_type.clone(),
            condition: self.condition.clone(),
            features: self.features.clone(),
            ..Default::default()
        };
        Ok(CarFacts {
            exterior_color,
            interior_color,
            ..checked_facts(&fields, needed, this_year)?
        })
    }
}

/// `data` of the listing text helper: the spec's AI listing text.
#[derive(Debug, Serialize, ToSchema)]
pub struct ListingTextData {
    pub description: String,
    pub highlights: Vec<String>,
}

/// `data` of enhance-description and generate-car-description.
#[derive(Debug, Serialize, ToSchema)]
pub struct DescriptionData {
    pub description: String,
}

/// A car the AI helpers matched (natural-language search, recommendations).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MatchedCar {
    #[serde(rename = "_id")]
    pub id: String,
    pub make: String,
    pub model: String,
    pub year: i32,
    pub price: f64,
    pub fuel_type: String,
    pub transmission: String,
    pub body_type: String,
    /// Kilometres.
    pub mileage: i64,
}

impl From<&car::Model> for MatchedCar {
    fn from(c: &car::Model) -> Self {
        Self {
            id: c.id.to_string(),
            make: c.make.clone(),
            model: c.model.clone(),
            year: c.year,
            price: c.price,
            fuel_type: c.fuel_type.clone(),
            transmission: c.transmission.clone(),
            body_type: c.body_type.clone(),
            mileage: c.mileage,
        }
    }
}

/// The spec's AI natural-language search, with what was relaxed to find matches.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NaturalSearchData {
    /// How the query was read.
    pub interpreted_query: Interpretation,
    /// What was run: the reading with the relaxed constraints given up or widened.
    pub applied_query: Interpretation,
    /// Constraints relaxed because nothing matched, in order: priorityFeatures, maxPrice
    /// (raised 20%), maxMileage, bodyType.
    pub relaxed: Vec<&'static str>,
    /// Listings matching the applied query.
    pub total_results: u64,
    pub results: Vec<MatchedCar>,
}

/// One recommended listing, its score and the reasons that earned it.
#[derive(Debug, Serialize, ToSchema)]
pub struct Recommendation {
    pub car: MatchedCar,
    pub score: f64,
    pub reasons: Vec<String>,
}

/// What a lifestyle was read as.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProfileData {
    pub lifestyles: Vec<&'static str>,
    pub body_types: Vec<&'static str>,
    pub fuel_types: Vec<&'static str>,
    pub features: Vec<&'static str>,
}

/// Recommended cars, best first.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecommendationsData {
    pub profile: ProfileData,
    /// Listings within budget that were scored.
    pub considered: u64,
    pub recommendations: Vec<Recommendation>,
}

/// A comparable listing.
#[derive(Debug, Serialize, ToSchema)]
pub struct SimilarCar {
    #[serde(rename = "_id")]
    pub id: String,
    pub make: String,
    pub model: String,
    pub year: i32,
    pub price: f64,
}

/// The spec's AI pricing insights, with how the comparison was made.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PricingData {
    pub car_id: String,
    pub current_price: f64,
    /// Average price of the comparable listings; null when fewer than minimumComparables
    /// were found (not enough data).
    pub market_average: Option<f64>,
    /// currentPrice minus marketAverage.
    pub difference: Option<f64>,
    /// The difference as a percentage of marketAverage, one decimal.
    pub difference_percent: Option<f64>,
    /// Comparable listings found (those averaged when there are enough).
    pub comparable_count: u64,
    /// The fewest comparable listings an average is given from (3).
    pub minimum_comparables: u64,
    /// model (same make and model), makeAndBody (same make and body type), or
    /// notEnoughData; always within comparedYears and comparedMileageKm.
    pub compared_by: &'static str,
    /// The model years compared: the car's ± 3.
    pub compared_years: [i32; 2],
    /// The kilometres compared: the car's mileage ± half of it, at least ± 30,000.
    pub compared_mileage_km: [i64; 2],
    pub price_analysis: String,
    pub similar_cars: Vec<SimilarCar>,
    pub recommendation: String,
}

impl RecommendationsRequest {
    pub fn wishes(&self) -> Result<Wishes, MarketplaceError> {
        let prefs = self.preferences.clone().unwrap_or_default();
        let choice =
            |c: &listing::Choice, v: &Option<String>| v.as_deref().map(|v| c.parse(v)).transpose();
        Ok(Wishes {
            budget: budget(&self.budget)?,
            fuel_type: choice(&listing::FUEL_TYPE, &prefs.fuel_type)?,
            transmission: choice(&listing::TRANSMISSION, &prefs.transmission)?,
            body_type: choice(&listing::BODY_TYPE, &prefs.body_type)?,
            profile: optional("lifestyle", &self.lifestyle, 500)?
                .map(|l| Profile::from_text(&l))
                .unwrap_or_default(),
        })
    }
}

const TERRAINS: listing::Choice = listing::Choice {
    field: "terrain",
    values: &["city", "highway", "offroad", "mixed"],
};
const QUIZ_TRANSMISSION: listing::Choice = listing::Choice {
    field: "transmission",
    values: &["Manual", "Automatic", "any"],
};
/// Passengers from which a family car is favoured.
const FAMILY_PASSENGERS: i64 = 6;

impl LifestyleQuiz {
    /// The quiz's answers as wishes: the primary use's preset, a family preset for six or
    /// more passengers, eco for eco-friendly, adventure for off-road and commute for city
    /// driving.
    pub fn wishes(&self) -> Result<Wishes, MarketplaceError> {
        let budget = budget(&self.budget)?;
        let raw = required("primaryUse", &self.primary_use)?;
        let primary = PRESETS
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(raw.trim()))
            .ok_or_else(|| {
                let uses: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
                MarketplaceError::invalid(
                    "primaryUse",
                    raw,
                    format!("primaryUse must be one of {}", uses.join(", ")),
                )
            })?;
        let mut profile = Profile::default();
        profile.add(primary);
        let mut add = |name: &str| {
            if let Some(p) = Profile::preset(name) {
                profile.add(p);
            }
        };
        if let Some(p) = &self.passengers {
            let n = p.integer("passengers")?;
            if !(1..=9).contains(&n) {
                return Err(MarketplaceError::invalid(
                    "passengers",
                    &n.to_string(),
                    "passengers must be 1 to 9",
                ));
            }
            if n >= FAMILY_PASSENGERS {
                add("family");
            }
        }
        if self.eco_friendly == Some(true) {
            add("eco");
        }
        match self
            .terrain
            .as_deref()
            .map(|t| TERRAINS.parse(t))
            .transpose()?
        {
            Some("offroad") => add("adventure"),
            Some("city") => add("commute"),
            _ => {}
        }
        let transmission = match self
            .transmission
            .as_deref()
            .map(|t| QUIZ_TRANSMISSION.parse(t))
            .transpose()?
        {
            Some("any") | None => None,
            Some(t) => Some(t),
        };
        Ok(Wishes {
            budget,
            transmission,
            profile,
            ..Default::default()
        })
    }
}
