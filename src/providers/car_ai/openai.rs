//! The car writer on an OpenAI-compatible model. Users' text reaches the model only inside
//! the prompt's data block ([`guard`]); each answer must be JSON of the asked shape, keep the
//! facts it was given and state no number it was not given; otherwise (or on an error or
//! timeout) the built-in writer answers and a warning is logged. A search prompt carries the
//! buyer's query alone: no listing's text, so no seller can steer which listings it finds.

use super::builtin::keeps_numbers;
use super::guard::{self, data_block, figures_agree, standing_agrees};
use super::{
    Builtin, CarFacts, CarWriter, Interpretation, ListingText, PriceFacts, PriceWords, Vocabulary,
};
use crate::providers::openai_chat::{json_in, ChatClient};
use async_trait::async_trait;
use serde_json::{json, Value};

/// Longest text taken from a model.
const MAX_TEXT_CHARS: usize = 5000;

/// The system message: the role, then what the data block is.
fn system() -> String {
    format!(
        "You write for a car marketplace. Be accurate and concise; never invent facts, prices \
         or numbers that you were not given. Answer only with the JSON asked for. {}",
        guard::DATA_RULE
    )
}

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
        let answer = self.client.chat(&system(), &prompt).await.and_then(|text| {
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

/// The numbers a text about `f` may state: those of its facts and of `extra` (the seller's
/// own description, when one is tidied).
fn fact_numbers(f: &CarFacts, extra: &str) -> Vec<f64> {
    guard::numbers_in(&format!("{} {extra}", facts_json(f)))
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
            "Write a listing for this car from the car facts in the data block. Answer only with JSON: {{\"description\": string, \"highlights\": [2 to 6 short strings]}}\n\n{}",
            data_block(&json!({"carFacts": facts_json(facts)}))
        );
        let figures = fact_numbers(facts, "");
        let parsed = self
            .ask("listing", prompt, |v| {
                let description = text(v, "description")?;
                names_car(&description, facts)?;
                figures_agree(&description, &figures)?;
                let highlights: Vec<&str> = v["highlights"]
                    .as_array()
                    .ok_or("no highlights")?
                    .iter()
                    .map(|h| {
                        h.as_str()
                            .map(str::trim)
                            .filter(|h| !h.is_empty() && h.len() <= 100)
                    })
                    .collect::<Option<Vec<&str>>>()
                    .ok_or("a highlight is not a short text")?;
                highlights
                    .iter()
                    .try_for_each(|h| figures_agree(h, &figures))?;
                let highlights: Vec<String> =
                    highlights.into_iter().map(str::to_owned).take(6).collect();
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
            "Improve the structure, spelling and wording of the seller's description in the data block, using the car facts beside it. Keep every fact and every number; add none. Answer only with JSON: {{\"description\": string}}\n\n{}",
            data_block(&json!({"carFacts": facts_json(facts), "description": description}))
        );
        let figures = fact_numbers(facts, description);
        let parsed = self
            .ask("enhance", prompt, |v| {
                let out = text(v, "description")?;
                if !keeps_numbers(description, &out) {
                    return Err("the enhanced text lost a number".into());
                }
                figures_agree(&out, &figures)?;
                Ok(out)
            })
            .await;
        parsed.unwrap_or_else(|| Builtin::enhanced(description, facts))
    }

    async fn describe(&self, facts: &CarFacts) -> String {
        let prompt = format!(
            "Write a description of this car for its listing from the car facts in the data block. Answer only with JSON: {{\"description\": string}}\n\n{}",
            data_block(&json!({"carFacts": facts_json(facts)}))
        );
        let figures = fact_numbers(facts, "");
        let parsed = self
            .ask("describe", prompt, |v| {
                let out = text(v, "description")?;
                names_car(&out, facts)?;
                figures_agree(&out, &figures)?;
                Ok(out)
            })
            .await;
        parsed.unwrap_or_else(|| Builtin::description(facts))
    }

    async fn interpret(&self, query: &str, vocab: &Vocabulary) -> Interpretation {
        // The listed makes and models are not named: they are sellers' text. The answer is
        // spelled as listed by `checked` afterwards.
        let prompt = format!(
            "Read this car search, the query in the data block, into filters. Answer only with JSON with these keys, null (or []) when the search does not ask for it: \
             {{\"make\": car make, \"model\": car model, \"bodyType\": one of {}, \"minPrice\": number, \"maxPrice\": number, \
             \"minYear\": integer, \"maxYear\": integer, \"maxMileage\": kilometres, \"fuelType\": one of {}, \"transmission\": one of {}, \
             \"condition\": one of {}, \"priorityFeatures\": [feature names], \"sortBy\": one of price:asc, price:desc, year:desc, mileage:asc}}\n\n{}",
            vocab.body_types.join(", "),
            vocab.fuel_types.join(", "),
            vocab.transmissions.join(", "),
            vocab.conditions.join(", "),
            data_block(&json!({"query": query})),
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
        let comparison = json!({
            "askingPrice": facts.current_price,
            "marketAverage": facts.market_average,
            "difference": facts.difference(),
            "differencePercent": facts.difference_percent(),
            "comparableListings": facts.comparables,
            "minimumForAnAverage": facts.minimum,
            "comparedWith": facts.basis,
            "modelYears": [facts.years.0, facts.years.1],
            "mileageKm": [facts.mileage_km.0, facts.mileage_km.1],
        });
        let prompt = format!(
            "In one sentence each, analyse the asking price against the market average and recommend what the seller should do, from the comparison in the data block (marketAverage null: too few comparable listings for an average; say so). Use only the comparison's numbers. Answer only with JSON: {{\"priceAnalysis\": string, \"recommendation\": string}}\n\n{}",
            data_block(&json!({"comparison": comparison, "carFacts": facts_json(&facts.car)})),
        );
        let (figures, standing) = (facts.figures(), facts.standing());
        let parsed = self
            .ask("pricing", prompt, |v| {
                let words = PriceWords {
                    analysis: text(v, "priceAnalysis")?,
                    recommendation: text(v, "recommendation")?,
                };
                for t in [&words.analysis, &words.recommendation] {
                    figures_agree(t, &figures)?;
                    standing_agrees(t, standing)?;
                }
                Ok(words)
            })
            .await;
        parsed.unwrap_or_else(|| Builtin::price_words(facts))
    }
}
