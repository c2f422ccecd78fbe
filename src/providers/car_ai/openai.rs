//! The car writer on an OpenAI-compatible model. Each answer must be JSON of the asked shape
//! and keep the facts it was given; otherwise (or on an error or timeout) the built-in
//! writer answers and a warning is logged.

use super::builtin::keeps_numbers;
use super::{
    Builtin, CarFacts, CarWriter, Interpretation, ListingText, PriceFacts, PriceWords, Vocabulary,
};
use crate::providers::openai_chat::{json_in, ChatClient};
use async_trait::async_trait;
use serde_json::{json, Value};

const SYSTEM: &str = "You write for a car marketplace. Be accurate and concise; never invent \
facts, prices or numbers that you were not given. Answer only with the JSON asked for.";
/// Longest text taken from a model.
const MAX_TEXT_CHARS: usize = 5000;
/// Listed models named in a search prompt (the rest are left out to bound its size).
const MAX_LISTED_IN_PROMPT: usize = 300;

pub struct OpenAi {
    client: ChatClient,
}

impl OpenAi {
    pub fn new(client: ChatClient) -> Self {
        Self { client }
    }

    /// The model's JSON answer to `prompt`, read by `parse`; `None` (logged) when unusable.
    async fn ask<T>(
        &self,
        what: &str,
        prompt: String,
        parse: impl FnOnce(&Value) -> Result<T, String>,
    ) -> Option<T> {
        let answer = self.client.chat(SYSTEM, &prompt).await.and_then(|text| {
            let v = json_in(&text).ok_or("answer was not JSON")?;
            parse(&v)
        });
        answer
            .map_err(|e| {
                tracing::warn!(error = %e, what, "AI car writer failed; using the built-in writer");
            })
            .ok()
    }
}

fn facts_json(f: &CarFacts) -> Value {
    json!({
        "make": f.make, "model": f.model, "year": f.year, "mileageKm": f.mileage,
        "price": f.price, "fuelType": f.fuel_type, "transmission": f.transmission,
        "bodyType": f.body_type, "exteriorColor": f.exterior_color,
        "interiorColor": f.interior_color, "condition": f.condition, "features": f.features,
    })
}

/// The non-empty text at `key`, at most [`MAX_TEXT_CHARS`].
fn text(v: &Value, key: &str) -> Result<String, String> {
    v[key]
        .as_str()
        .map(str::trim)
        .filter(|s| !s.is_empty() && s.chars().count() <= MAX_TEXT_CHARS)
        .map(str::to_owned)
        .ok_or(format!("no usable {key}"))
}

/// `text` names the car's make and model.
fn names_car(text: &str, f: &CarFacts) -> Result<(), String> {
    let t = text.to_lowercase();
    if t.contains(&f.make.to_lowercase()) && t.contains(&f.model.to_lowercase()) {
        Ok(())
    } else {
        Err("the text does not name the car".into())
    }
}

#[async_trait]
impl CarWriter for OpenAi {
    async fn write_listing(&self, facts: &CarFacts) -> ListingText {
        let prompt = format!(
            "Car facts: {}\n\nWrite a listing for this car. Answer only with JSON: {{\"description\": string, \"highlights\": [2 to 6 short strings]}}",
            facts_json(facts)
        );
        let parsed = self
            .ask("listing", prompt, |v| {
                let description = text(v, "description")?;
                names_car(&description, facts)?;
                let highlights: Vec<String> = v["highlights"]
                    .as_array()
                    .ok_or("no highlights")?
                    .iter()
                    .map(|h| {
                        h.as_str()
                            .map(str::trim)
                            .filter(|h| !h.is_empty() && h.len() <= 100)
                    })
                    .collect::<Option<Vec<&str>>>()
                    .ok_or("a highlight is not a short text")?
                    .into_iter()
                    .map(str::to_owned)
                    .take(6)
                    .collect();
                Ok(ListingText {
                    description,
                    highlights,
                })
            })
            .await;
        parsed.unwrap_or_else(|| Builtin::listing(facts))
    }

    async fn enhance(&self, description: &str, facts: &CarFacts) -> String {
        let prompt = format!(
            "Car facts: {}\n\nImprove the structure, spelling and wording of this listing description. Keep every fact and every number; add none. Description:\n{description}\n\nAnswer only with JSON: {{\"description\": string}}",
            facts_json(facts)
        );
        let parsed = self
            .ask("enhance", prompt, |v| {
                let out = text(v, "description")?;
                if !keeps_numbers(description, &out) {
                    return Err("the enhanced text lost a number".into());
                }
                Ok(out)
            })
            .await;
        parsed.unwrap_or_else(|| Builtin::enhanced(description, facts))
    }

    async fn describe(&self, facts: &CarFacts) -> String {
        let prompt = format!(
            "Car facts: {}\n\nWrite a description of this car for its listing. Answer only with JSON: {{\"description\": string}}",
            facts_json(facts)
        );
        let parsed = self
            .ask("describe", prompt, |v| {
                let out = text(v, "description")?;
                names_car(&out, facts)?;
                Ok(out)
            })
            .await;
        parsed.unwrap_or_else(|| Builtin::description(facts))
    }

    async fn interpret(&self, query: &str, vocab: &Vocabulary) -> Interpretation {
        let listed: Vec<String> = vocab
            .listed
            .iter()
            .take(MAX_LISTED_IN_PROMPT)
            .map(|(make, model)| format!("{make} {model}"))
            .collect();
        let prompt = format!(
            "Read this car search: {query:?}\n\nListed makes and models: {}.\n\nAnswer only with JSON with these keys, null (or []) when the search does not ask for it: \
             {{\"make\": listed make, \"model\": listed model, \"bodyType\": one of {}, \"minPrice\": number, \"maxPrice\": number, \
             \"minYear\": integer, \"maxYear\": integer, \"maxMileage\": kilometres, \"fuelType\": one of {}, \"transmission\": one of {}, \
             \"condition\": one of {}, \"priorityFeatures\": [feature names], \"sortBy\": one of price:asc, price:desc, year:desc, mileage:asc}}",
            listed.join(", "),
            vocab.body_types.join(", "),
            vocab.fuel_types.join(", "),
            vocab.transmissions.join(", "),
            vocab.conditions.join(", "),
        );
        let parsed = self
            .ask("interpret", prompt, |v| {
                serde_json::from_value::<Interpretation>(v.clone())
                    .map_err(|e| format!("not the interpretation's shape: {e}"))?
                    .checked(vocab)
            })
            .await;
        parsed.unwrap_or_else(|| super::query::interpret(query, vocab))
    }

    async fn word_price(&self, facts: &PriceFacts) -> PriceWords {
        let prompt = format!(
            "Car facts: {}\nAsking price: {}\nMarket average of {} comparable listings ({}): {}\n\nIn one sentence each, analyse the asking price against the market average and recommend what the seller should do. Use only these numbers. Answer only with JSON: {{\"priceAnalysis\": string, \"recommendation\": string}}",
            facts_json(&facts.car),
            facts.current_price,
            facts.comparables,
            facts.basis,
            facts.market_average.map_or("none".to_owned(), |a| a.to_string()),
        );
        let parsed = self
            .ask("pricing", prompt, |v| {
                Ok(PriceWords {
                    analysis: text(v, "priceAnalysis")?,
                    recommendation: text(v, "recommendation")?,
                })
            })
            .await;
        parsed.unwrap_or_else(|| Builtin::price_words(facts))
    }
}
