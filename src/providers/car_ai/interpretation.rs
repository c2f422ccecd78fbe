//! A natural-language car search as read: the words it may use and the filters it names.

use serde::{Deserialize, Serialize};

/// The values a search may name: the listed makes and models and the closed sets of the
/// listing fields, each in its stored spelling.
#[derive(Debug, Clone, Default)]
pub struct Vocabulary {
    /// `(make, model)` of the listings.
    pub listed: Vec<(String, String)>,
    pub body_types: &'static [&'static str],
    pub fuel_types: &'static [&'static str],
    pub transmissions: &'static [&'static str],
    pub conditions: &'static [&'static str],
}

impl Vocabulary {
    pub(super) fn spelled(values: &[&'static str], v: &str) -> Option<&'static str> {
        values
            .iter()
            .find(|c| c.eq_ignore_ascii_case(v.trim()))
            .copied()
    }

    pub(super) fn make(&self, v: &str) -> Option<String> {
        self.listed
            .iter()
            .find(|(m, _)| m.eq_ignore_ascii_case(v.trim()))
            .map(|(m, _)| m.clone())
    }

    pub(super) fn model(&self, v: &str) -> Option<(String, String)> {
        self.listed
            .iter()
            .find(|(_, m)| m.eq_ignore_ascii_case(v.trim()))
            .cloned()
    }
}

/// How a natural-language search was read: filters over the listings (`None`: not asked).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", default)]
// The advanced search's `Interpretation` holds the OpenAPI name.
#[schema(as = InterpretedQuery)]
pub struct Interpretation {
    pub make: Option<String>,
    pub model: Option<String>,
    pub body_type: Option<String>,
    pub min_price: Option<f64>,
    pub max_price: Option<f64>,
    pub min_year: Option<i32>,
    pub max_year: Option<i32>,
    /// Kilometres.
    pub max_mileage: Option<i64>,
    pub fuel_type: Option<String>,
    pub transmission: Option<String>,
    pub condition: Option<String>,
    /// A colour word ("Red"), matched as a word of the listing's colour; absent unless
    /// named (the natural-language answer's shape is unchanged without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    /// Features the listing should name, matched as text in its features.
    pub priority_features: Vec<String>,
    /// A sort of the car lists (`price:asc`, `year:desc`, `mileage:asc`).
    pub sort_by: Option<String>,
}
