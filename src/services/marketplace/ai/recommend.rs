//! Recommendations: the listings within a budget, scored against what the buyer prefers and
//! how they live. A lifestyle (free text, or the quiz's answers) becomes a [`Profile`] of
//! favoured bodies, fuels and features; the score is the sum of documented points, so the
//! reasons answered are exactly what earned them.

use crate::services::marketplace::ai::store;
use crate::services::marketplace::error::Result;
use crate::services::marketplace::state::MarketplaceState;
use sea_orm::sea_query::Order;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use switchboard_entities::marketplace::car;

/// Listings within budget that are scored (the newest first beyond that).
const CANDIDATES: u64 = 500;
pub const SHOWN: usize = 10;

/// Points: an explicit preference met, a lifestyle's body, fuel or feature met.
const PREFERENCE_POINTS: f64 = 30.0;
const PROFILE_BODY_POINTS: f64 = 15.0;
const PROFILE_FUEL_POINTS: f64 = 10.0;
const PROFILE_FEATURE_POINTS: f64 = 5.0;
/// Up to this many points for being newer and driven less, and for leaving budget to spare.
const AGE_POINTS: f64 = 10.0;
const MILEAGE_POINTS: f64 = 10.0;
const VALUE_POINTS: f64 = 5.0;
/// Kilometres at which a car earns no mileage points (double weight for low-mileage profiles).
const MILEAGE_SCALE_KM: f64 = 200_000.0;

/// A way of living and what suits it.
pub struct Preset {
    pub name: &'static str,
    /// Words of a lifestyle text that point to it.
    pub words: &'static [&'static str],
    pub bodies: &'static [&'static str],
    pub fuels: &'static [&'static str],
    pub features: &'static [&'static str],
    pub low_mileage: bool,
}

pub const PRESETS: &[Preset] = &[
    Preset {
        name: "family",
        words: &["family", "kids", "children", "child", "school", "baby"],
        bodies: &["SUV", "Minivan", "Wagon"],
        fuels: &[],
        features: &["Third Row", "Backup Camera"],
        low_mileage: false,
    },
    Preset {
        name: "commute",
        words: &[
            "commute",
            "commuting",
            "commuter",
            "city",
            "urban",
            "parking",
        ],
        bodies: &["Hatchback", "Sedan"],
        fuels: &["Hybrid", "Electric"],
        features: &["Bluetooth"],
        low_mileage: true,
    },
    Preset {
        name: "adventure",
        words: &[
            "adventure",
            "outdoor",
            "outdoors",
            "camping",
            "offroad",
            "off-road",
            "hiking",
            "ski",
            "mountains",
        ],
        bodies: &["SUV", "Pickup", "Crossover"],
        fuels: &[],
        features: &["All-Wheel Drive"],
        low_mileage: false,
    },
    Preset {
        name: "eco",
        words: &[
            "eco",
            "green",
            "environment",
            "environmental",
            "sustainable",
            "efficient",
        ],
        bodies: &[],
        fuels: &["Electric", "Hybrid"],
        features: &[],
        low_mileage: false,
    },
    Preset {
        name: "business",
        words: &["business", "executive", "clients", "luxury", "professional"],
        bodies: &["Sedan"],
        fuels: &[],
        features: &["Leather", "Navigation"],
        low_mileage: true,
    },
    Preset {
        name: "performance",
        words: &["sport", "sporty", "performance", "fast", "fun", "weekend"],
        bodies: &["Coupe", "Convertible"],
        fuels: &[],
        features: &[],
        low_mileage: false,
    },
    Preset {
        name: "work",
        words: &[
            "work",
            "tow",
            "towing",
            "haul",
            "hauling",
            "construction",
            "trade",
            "tools",
        ],
        bodies: &["Pickup", "Van"],
        fuels: &["Diesel"],
        features: &["Tow Hitch"],
        low_mileage: false,
    },
];

/// What suits a buyer's life: the union of the presets that apply.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Profile {
    pub labels: Vec<&'static str>,
    pub bodies: Vec<&'static str>,
    pub fuels: Vec<&'static str>,
    pub features: Vec<&'static str>,
    pub low_mileage: bool,
}

impl Profile {
    pub fn add(&mut self, p: &Preset) {
        if self.labels.contains(&p.name) {
            return;
        }
        self.labels.push(p.name);
        for (into, from) in [
            (&mut self.bodies, p.bodies),
            (&mut self.fuels, p.fuels),
            (&mut self.features, p.features),
        ] {
            for v in from {
                if !into.contains(v) {
                    into.push(v);
                }
            }
        }
        self.low_mileage |= p.low_mileage;
    }

    pub fn preset(name: &str) -> Option<&'static Preset> {
        PRESETS.iter().find(|p| p.name == name)
    }

    /// The presets a lifestyle text's words point to.
    pub fn from_text(text: &str) -> Self {
        let lower = text.to_lowercase();
        let words: Vec<&str> = lower
            .split(|c: char| !c.is_alphanumeric() && c != '-')
            .filter(|w| !w.is_empty())
            .collect();
        let mut p = Self::default();
        for preset in PRESETS {
            if preset.words.iter().any(|w| words.contains(w)) {
                p.add(preset);
            }
        }
        p
    }
}

/// What the buyer asked for.
#[derive(Debug, Clone, Default)]
pub struct Wishes {
    pub budget: f64,
    pub fuel_type: Option<&'static str>,
    pub transmission: Option<&'static str>,
    pub body_type: Option<&'static str>,
    pub profile: Profile,
}

pub struct Scored {
    pub car: car::Model,
    pub score: f64,
    pub reasons: Vec<String>,
}

fn features_of(c: &car::Model) -> Vec<String> {
    serde_json::from_value::<Vec<String>>(c.features.clone())
        .unwrap_or_default()
        .into_iter()
        .map(|f| f.to_lowercase())
        .collect()
}

/// `c`'s points against `w` and why.
pub fn score(c: &car::Model, w: &Wishes, this_year: i32) -> Scored {
    let mut score = 0.0;
    let mut reasons = vec![];
    for (wanted, has, what) in [
        (w.fuel_type, &c.fuel_type, "fuel type"),
        (w.transmission, &c.transmission, "transmission"),
        (w.body_type, &c.body_type, "body type"),
    ] {
        if wanted == Some(has.as_str()) {
            score += PREFERENCE_POINTS;
            reasons.push(format!("Matches your preferred {what}: {has}"));
        }
    }
    let labels = w.profile.labels.join(", ");
    if w.profile.bodies.contains(&c.body_type.as_str()) {
        score += PROFILE_BODY_POINTS;
        reasons.push(format!("A {} suits a {labels} lifestyle", c.body_type));
    }
    if w.profile.fuels.contains(&c.fuel_type.as_str()) {
        score += PROFILE_FUEL_POINTS;
        reasons.push(format!("{} power suits a {labels} lifestyle", c.fuel_type));
    }
    let features = features_of(c);
    for f in &w.profile.features {
        let needle = f.to_lowercase();
        if features.iter().any(|have| have.contains(&needle)) {
            score += PROFILE_FEATURE_POINTS;
            reasons.push(format!("Has {f}"));
        }
    }
    let age = f64::from((this_year - c.year).max(0));
    score += AGE_POINTS * (1.0 - age / 20.0).max(0.0);
    let weight = if w.profile.low_mileage { 2.0 } else { 1.0 };
    score += weight * MILEAGE_POINTS * (1.0 - c.mileage as f64 / MILEAGE_SCALE_KM).max(0.0);
    if w.budget > 0.0 {
        score += VALUE_POINTS * (1.0 - c.price / w.budget).max(0.0);
    }
    reasons.push(format!(
        "Within your budget at {}",
        crate::providers::car_ai::builtin::money(c.price)
    ));
    Scored {
        car: c.clone(),
        score: (score * 10.0).round() / 10.0,
        reasons,
    }
}

/// The best-scoring active priced listings within the budget.
pub async fn recommend(st: &MarketplaceState, w: &Wishes) -> Result<(Vec<Scored>, u64)> {
    use car::Column as C;
    let candidates = car::Entity::find()
        .filter(C::Status.eq(car::CarStatus::Active))
        .filter(C::Price.gt(0.0))
        .filter(C::Price.lte(w.budget))
        .order_by(C::CreatedAt, Order::Desc)
        .order_by(C::Id, Order::Desc)
        .limit(CANDIDATES)
        .all(&st.core.db)
        .await?;
    let considered = candidates.len() as u64;
    let year = store::this_year(st);
    let mut scored: Vec<Scored> = candidates.iter().map(|c| score(c, w, year)).collect();
    scored.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.car.price.total_cmp(&b.car.price))
            .then_with(|| a.car.id.cmp(&b.car.id))
    });
    scored.truncate(SHOWN);
    Ok((scored, considered))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifestyle_words_pick_presets() {
        let p = Profile::from_text("I commute in the city and take the kids camping");
        assert_eq!(p.labels, vec!["family", "commute", "adventure"]);
        assert!(p.bodies.contains(&"Minivan") && p.fuels.contains(&"Hybrid"));
        assert!(p.low_mileage);
        assert_eq!(
            Profile::from_text("nothing in particular"),
            Profile::default()
        );
    }
}
