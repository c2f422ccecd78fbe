//! AI port for the car marketplace: writing listing text, tidying a description, describing
//! a car, reading a natural-language search and wording a price comparison. The built-in
//! writer (the default, deterministic, offline) and an OpenAI-compatible adapter that falls
//! back to it whenever the model fails, times out or answers something unusable. Numbers
//! (prices, counts, matches) are never asked of a model: the service computes them, and
//! [`guard`] checks that the model's words state no others.

pub mod builtin;
pub mod guard;
mod interpretation;
mod openai;
pub mod query;

use super::openai_chat::ChatClient;
use super::settings::AiSettings;
use async_trait::async_trait;
use std::sync::Arc;

pub use builtin::Builtin;
pub use interpretation::{Interpretation, Vocabulary};
pub use openai::OpenAi;

/// What is known about a car; any fact but make and model may be missing.
#[derive(Debug, Clone, Default)]
pub struct CarFacts {
    pub make: String,
    pub model: String,
    pub year: Option<i32>,
    /// Kilometres.
    pub mileage: Option<i64>,
    pub price: Option<f64>,
    pub fuel_type: Option<String>,
    pub transmission: Option<String>,
    pub body_type: Option<String>,
    pub exterior_color: Option<String>,
    pub interior_color: Option<String>,
    pub condition: Option<String>,
    pub features: Vec<String>,
    /// The current year on the service's clock, for the car's age.
    pub this_year: i32,
}

impl CarFacts {
    /// "2019 Toyota Corolla".
    pub fn title(&self) -> String {
        match self.year {
            Some(y) => format!("{y} {} {}", self.make, self.model),
            None => format!("{} {}", self.make, self.model),
        }
    }
}

/// A listing's text: a description and short highlights.
#[derive(Debug, Clone, PartialEq)]
pub struct ListingText {
    pub description: String,
    pub highlights: Vec<String>,
}

/// A price comparison the service computed, for wording.
#[derive(Debug, Clone)]
pub struct PriceFacts {
    pub car: CarFacts,
    pub current_price: f64,
    /// `None` when fewer than `minimum` comparable listings were found.
    pub market_average: Option<f64>,
    /// Comparable listings found (fewer than `minimum` when there is no average).
    pub comparables: u64,
    /// The fewest comparable listings a market average is given from.
    pub minimum: u64,
    /// Which listings were compared, in words ("the same make and model").
    pub basis: String,
    /// The model years compared, inclusive.
    pub years: (i32, i32),
    /// The mileage band compared, kilometres inclusive.
    pub mileage_km: (i64, i64),
}

impl PriceFacts {
    /// The asking price minus the market average, to the cent.
    pub fn difference(&self) -> Option<f64> {
        self.market_average
            .map(|a| ((self.current_price - a) * 100.0).round() / 100.0)
    }

    /// The difference as a percentage of the market average, one decimal.
    pub fn difference_percent(&self) -> Option<f64> {
        self.market_average
            .filter(|a| *a > 0.0)
            .map(|a| ((self.current_price - a) / a * 1000.0).round() / 10.0)
    }

    /// Where the price stands against the market.
    pub fn standing(&self) -> guard::Standing {
        use guard::Standing;
        match self.market_average.filter(|a| *a > 0.0) {
            None => Standing::Unknown,
            Some(a) => {
                let diff = (self.current_price - a) / a;
                if diff > 0.0005 {
                    Standing::Above
                } else if diff < -0.0005 {
                    Standing::Below
                } else {
                    Standing::Level
                }
            }
        }
    }

    /// Every figure a wording of this comparison may state. The car's features are not
    /// among them: they are the seller's text, and a number there is no computed figure.
    pub fn figures(&self) -> Vec<f64> {
        let mut f = vec![
            self.current_price,
            self.comparables as f64,
            self.minimum as f64,
            f64::from(self.years.0),
            f64::from(self.years.1),
            self.mileage_km.0 as f64,
            self.mileage_km.1 as f64,
        ];
        f.extend(self.market_average);
        f.extend(self.difference().map(f64::abs));
        f.extend(self.difference_percent().map(f64::abs));
        f.extend(self.car.year.map(f64::from));
        f.extend(self.car.mileage.map(|m| m as f64));
        f
    }
}

/// The words about a price comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct PriceWords {
    pub analysis: String,
    pub recommendation: String,
}

/// The port.
#[async_trait]
pub trait CarWriter: Send + Sync {
    /// A listing's description and highlights from its facts.
    async fn write_listing(&self, facts: &CarFacts) -> ListingText;
    /// `description` tidied, every fact in it kept.
    async fn enhance(&self, description: &str, facts: &CarFacts) -> String;
    /// A description of the car from its facts.
    async fn describe(&self, facts: &CarFacts) -> String;
    /// The filters a search sentence asks for, in `vocab`'s spelling.
    async fn interpret(&self, query: &str, vocab: &Vocabulary) -> Interpretation;
    /// Words on a price comparison whose numbers are given.
    async fn word_price(&self, facts: &PriceFacts) -> PriceWords;
}

/// The writer chosen in `[ai]` (the same settings as the interviewer's).
pub fn from_settings(cfg: &AiSettings, http: reqwest::Client) -> Arc<dyn CarWriter> {
    match cfg.provider.as_str() {
        "openai" => Arc::new(OpenAi::new(ChatClient::new(cfg, http))),
        _ => Arc::new(Builtin),
    }
}
