//! The built-in writer: listing text from templates over the car's facts, a description
//! tidied sentence by sentence, the price comparison put in words, and searches read by
//! [`super::query`]. Deterministic and offline.

use super::{
    query, CarFacts, CarWriter, Interpretation, ListingText, PriceFacts, PriceWords, Vocabulary,
};
use async_trait::async_trait;

/// A price more than this far from the market average (as a fraction) is called out.
const PRICE_TOLERANCE: f64 = 0.10;
/// Kilometres a year below which a car's mileage is a highlight.
const LOW_KM_PER_YEAR: i64 = 10_000;
const MAX_HIGHLIGHTS: usize = 6;

pub struct Builtin;

/// `n` with thousands separators: 42000 -> "42,000".
pub fn thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 {
        format!("-{out}")
    } else {
        out
    }
}

/// A price in whole units with separators.
pub fn money(p: f64) -> String {
    thousands(p.round() as i64)
}

/// "a, b and c".
fn joined(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Every number of `original` (separators ignored) appears in `text`: nothing was lost.
pub fn keeps_numbers(original: &str, text: &str) -> bool {
    let numbers = |s: &str| -> Vec<String> {
        s.replace(',', "")
            .split(|c: char| !c.is_ascii_digit())
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let have = numbers(text);
    numbers(original).iter().all(|n| have.contains(n))
}

fn is_recent_low_mileage(f: &CarFacts) -> bool {
    match (f.year, f.mileage) {
        (Some(y), Some(km)) => km <= LOW_KM_PER_YEAR * i64::from((f.this_year - y).max(1)),
        _ => false,
    }
}

/// "Automatic Petrol SUV" from what is known.
fn kind(f: &CarFacts) -> String {
    let parts: Vec<&str> = [&f.transmission, &f.fuel_type, &f.body_type]
        .into_iter()
        .filter_map(|v| v.as_deref())
        .collect();
    parts.join(" ")
}

impl Builtin {
    pub fn listing(f: &CarFacts) -> ListingText {
        let mut s = vec![];
        let condition = f.condition.as_deref().map(str::to_lowercase);
        let mut opening = format!("This {}", f.title());
        if let Some(c) = &condition {
            opening.push_str(&format!(" is offered in {c} condition"));
        } else {
            opening.push_str(" is ready for its next owner");
        }
        if let Some(km) = f.mileage {
            opening.push_str(&format!(" with {} km on the odometer", thousands(km)));
        }
        s.push(format!("{opening}."));
        if !f.features.is_empty() {
            s.push(format!("It comes with {}.", joined(&f.features)));
        }
        if is_recent_low_mileage(f) {
            s.push("Its mileage is low for its age.".to_owned());
        }
        s.push("Contact us to arrange a viewing or a test drive.".to_owned());
        let mut highlights = vec![];
        if let Some(y) = f.year {
            highlights.push(format!("{y} model year"));
        }
        if let Some(km) = f.mileage {
            highlights.push(format!("{} km", thousands(km)));
        }
        if let Some(c) = &f.condition {
            highlights.push(format!("{c} condition"));
        }
        if is_recent_low_mileage(f) {
            highlights.push("Low mileage".to_owned());
        }
        highlights.extend(f.features.iter().cloned());
        highlights.truncate(MAX_HIGHLIGHTS);
        ListingText {
            description: s.join(" "),
            highlights,
        }
    }

    pub fn description(f: &CarFacts) -> String {
        let mut s = vec![];
        let kind = kind(f);
        if kind.is_empty() {
            s.push(format!("For sale: {}.", f.title()));
        } else {
            s.push(format!("For sale: {}, {}.", f.title(), with_article(&kind)));
        }
        let colours: Vec<String> = [
            f.exterior_color.as_ref().map(|c| format!("{c} paint")),
            f.interior_color.as_ref().map(|c| format!("a {c} interior")),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !colours.is_empty() {
            s.push(format!("It has {}.", joined(&colours)));
        }
        match (&f.condition, f.mileage) {
            (Some(c), Some(km)) => {
                s.push(format!("Condition: {c}, with {} km driven.", thousands(km)))
            }
            (Some(c), None) => s.push(format!("Condition: {c}.")),
            (None, Some(km)) => s.push(format!("It has {} km on the odometer.", thousands(km))),
            (None, None) => {}
        }
        if !f.features.is_empty() {
            s.push(format!("Equipment includes {}.", joined(&f.features)));
        }
        if let Some(p) = f.price.filter(|p| *p > 0.0) {
            s.push(format!("Asking price: {}.", money(p)));
        }
        s.join(" ")
    }

    /// `description` with its sentences trimmed, capitalised and punctuated, repeats dropped,
    /// under a title line naming the car when it does not already.
    pub fn enhanced(description: &str, f: &CarFacts) -> String {
        let mut sentences: Vec<String> = vec![];
        let mut current = String::new();
        let flush = |current: &mut String, sentences: &mut Vec<String>| {
            let t = current.split_whitespace().collect::<Vec<_>>().join(" ");
            let t = t.replace(" ,", ",").replace(" .", ".");
            let cs: Vec<char> = t.chars().collect();
            let mut spaced = String::with_capacity(t.len());
            for (i, c) in cs.iter().enumerate() {
                spaced.push(*c);
                if *c == ',' && cs.get(i + 1).is_some_and(|n| n.is_alphabetic()) {
                    spaced.push(' ');
                }
            }
            let t = spaced.trim_matches(|c: char| c == ',' || c == ';' || c.is_whitespace());
            current.clear();
            if t.chars().any(char::is_alphanumeric) {
                let mut c = t.chars();
                let first = c
                    .next()
                    .map(|x| x.to_uppercase().collect::<String>())
                    .unwrap_or_default();
                let mut s = format!("{first}{}", c.as_str());
                if !s.ends_with(['.', '!', '?']) {
                    s.push('.');
                }
                if !sentences.iter().any(|o| o.eq_ignore_ascii_case(&s)) {
                    sentences.push(s);
                }
            }
        };
        let chars: Vec<char> = description.chars().collect();
        for (i, c) in chars.iter().enumerate() {
            let ends = matches!(c, '!' | '?' | '\n')
                // A full stop between digits is a decimal point, not an ending.
                || (*c == '.'
                    && !(i > 0
                        && chars[i - 1].is_ascii_digit()
                        && chars.get(i + 1).is_some_and(char::is_ascii_digit)));
            if *c != '\n' && !(ends && current.ends_with(['!', '?', '.'])) {
                current.push(*c);
            }
            if ends {
                flush(&mut current, &mut sentences);
            }
        }
        flush(&mut current, &mut sentences);
        let body = sentences.join(" ");
        let named = !f.make.is_empty()
            && body.to_lowercase().contains(&f.make.to_lowercase())
            && body.to_lowercase().contains(&f.model.to_lowercase());
        if f.make.is_empty() || named {
            body
        } else {
            format!("{}\n\n{body}", f.title())
        }
    }

    pub fn price_words(p: &PriceFacts) -> PriceWords {
        let Some(avg) = p.market_average.filter(|a| *a > 0.0) else {
            return PriceWords {
                analysis: format!(
                    "No comparable priced listings were found for the {}, so there is no market average to compare with.",
                    p.car.title()
                ),
                recommendation: "Check the price against similar cars elsewhere before publishing it."
                    .to_owned(),
            };
        };
        let diff = (p.current_price - avg) / avg;
        let pct = format!("{:.1}%", diff.abs() * 100.0);
        let analysis = format!(
            "The asking price of {} is {} the market average of {} across {} comparable listing{} ({}).",
            money(p.current_price),
            if diff > 0.0005 {
                format!("{pct} above")
            } else if diff < -0.0005 {
                format!("{pct} below")
            } else {
                "equal to".to_owned()
            },
            money(avg),
            p.comparables,
            if p.comparables == 1 { "" } else { "s" },
            p.basis
        );
        let recommendation = if diff > PRICE_TOLERANCE {
            format!(
                "Consider lowering the price towards {} to sell sooner.",
                money(avg)
            )
        } else if diff < -PRICE_TOLERANCE {
            format!(
                "The car is priced well below the market; there may be room to ask closer to {}.",
                money(avg)
            )
        } else {
            "The price is in line with the market; keep it.".to_owned()
        };
        PriceWords {
            analysis,
            recommendation,
        }
    }
}

fn with_article(kind: &str) -> String {
    let vowel = kind
        .chars()
        .next()
        .is_some_and(|c| "AEIOUaeiou".contains(c));
    format!("{} {kind}", if vowel { "an" } else { "a" })
}

#[async_trait]
impl CarWriter for Builtin {
    async fn write_listing(&self, facts: &CarFacts) -> ListingText {
        Self::listing(facts)
    }

    async fn enhance(&self, description: &str, facts: &CarFacts) -> String {
        Self::enhanced(description, facts)
    }

    async fn describe(&self, facts: &CarFacts) -> String {
        Self::description(facts)
    }

    async fn interpret(&self, query: &str, vocab: &Vocabulary) -> Interpretation {
        query::interpret(query, vocab)
    }

    async fn word_price(&self, facts: &PriceFacts) -> PriceWords {
        Self::price_words(facts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corolla() -> CarFacts {
        CarFacts {
            make: "Toyota".into(),
            model: "Corolla".into(),
            year: Some(2019),
            mileage: Some(42_000),
            condition: Some("Used".into()),
            features: vec!["Bluetooth".into(), "Backup Camera".into()],
            this_year: 2026,
            ..Default::default()
        }
    }

    #[test]
    fn listing_text_names_every_fact() {
        let t = Builtin::listing(&corolla());
        assert!(
            t.description.starts_with(
                "This 2019 Toyota Corolla is offered in used condition with 42,000 km"
            ),
            "{}",
            t.description
        );
        assert!(t.description.contains("Bluetooth and Backup Camera"));
        assert_eq!(
            t.highlights[..3],
            ["2019 model year", "42,000 km", "Used condition"]
        );
        assert!(t.highlights.contains(&"Low mileage".to_owned()));
    }

    #[test]
    fn enhancing_fixes_structure_and_keeps_every_word() {
        let raw = "  great car  ,one owner!!  full service history\nnew tyres 2023. new tyres 2023.  price 12.5k";
        let out = Builtin::enhanced(raw, &corolla());
        assert_eq!(
            out,
            "2019 Toyota Corolla\n\nGreat car, one owner! Full service history. New tyres 2023. Price 12.5k."
        );
        assert!(keeps_numbers(raw, &out));
        for w in raw
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
        {
            assert!(out.to_lowercase().contains(&w.to_lowercase()), "{w}");
        }
    }

    #[test]
    fn numbers_and_prices_read_well() {
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(999), "999");
        assert!(!keeps_numbers("42,000 km", "42 thousand km"));
        let words = Builtin::price_words(&PriceFacts {
            car: corolla(),
            current_price: 16_500.0,
            market_average: Some(15_000.0),
            comparables: 3,
            basis: "same make and model".into(),
        });
        assert_eq!(words.analysis, "The asking price of 16,500 is 10.0% above the market average of 15,000 across 3 comparable listings (same make and model).");
        assert_eq!(
            words.recommendation,
            "The price is in line with the market; keep it."
        );
    }
}
