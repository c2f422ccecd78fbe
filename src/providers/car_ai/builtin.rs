//! The built-in writer: listing text from templates over the car's facts, a description
//! tidied sentence by sentence, the price comparison put in words, and searches read by
//! [`super::query`]. Deterministic and offline.

use super::guard::Standing;
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
        let mut s = vec![Self::for_sale(f)];
        s.extend(Self::details(f));
        s.join(" ")
    }

    /// "For sale: 2019 Toyota Corolla, an Automatic Petrol Sedan."
    fn for_sale(f: &CarFacts) -> String {
        let kind = kind(f);
        if kind.is_empty() {
            format!("For sale: {}.", f.title())
        } else {
            format!("For sale: {}, {}.", f.title(), with_article(&kind))
        }
    }

    /// Sentences on the car's colours, condition and mileage, equipment and price.
    fn details(f: &CarFacts) -> Vec<String> {
        let mut s = vec![];
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
        s
    }

    /// A description written from the car's facts (as [`Self::description`], and whether
    /// its mileage is low for its age), with the seller's text under it as their notes:
    /// every word of it kept, its sentences trimmed, capitalised and punctuated, repeats
    /// dropped. With no facts sent there is only the tidied text.
    pub fn enhanced(description: &str, f: &CarFacts) -> String {
        let mut facts = vec![];
        if !f.make.is_empty() {
            facts.push(Self::for_sale(f));
        }
        facts.extend(Self::details(f));
        if is_recent_low_mileage(f) {
            facts.push("Its mileage is low for its age.".to_owned());
        }
        let notes = tidied(description);
        match (facts.is_empty(), notes.is_empty()) {
            (true, _) => notes,
            (false, true) => facts.join(" "),
            (false, false) => format!("{}\n\nFrom the seller: {notes}", facts.join(" ")),
        }
    }
}

/// `text` with its sentences trimmed, capitalised and punctuated, repeats dropped.
fn tidied(description: &str) -> String {
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
    sentences.join(" ")
}

impl Builtin {
    pub fn price_words(p: &PriceFacts) -> PriceWords {
        let scope = format!(
            "{}, model years {} to {}, {} to {} km",
            p.basis,
            p.years.0,
            p.years.1,
            thousands(p.mileage_km.0),
            thousands(p.mileage_km.1)
        );
        let listings = |n: u64| format!("{n} comparable listing{}", if n == 1 { "" } else { "s" });
        let (Some(avg), Some(pct)) = (p.market_average, p.difference_percent()) else {
            return PriceWords {
                analysis: format!(
                    "Not enough data to price the {}: {} found ({scope}), and a market average needs at least {}.",
                    p.car.title(),
                    listings(p.comparables),
                    p.minimum
                ),
                recommendation: "Check the price against similar cars elsewhere before publishing it."
                    .to_owned(),
            };
        };
        let standing = match p.standing() {
            Standing::Above => format!("{:.1}% above", pct.abs()),
            Standing::Below => format!("{:.1}% below", pct.abs()),
            Standing::Level | Standing::Unknown => "equal to".to_owned(),
        };
        let analysis = format!(
            "The asking price of {} is {standing} the market average of {} across {} ({scope}).",
            money(p.current_price),
            money(avg),
            listings(p.comparables),
        );
        let diff = pct / 100.0;
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
    use super::super::guard;
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
            "For sale: 2019 Toyota Corolla. Condition: Used, with 42,000 km driven. Equipment includes Bluetooth and Backup Camera. Its mileage is low for its age.\n\nFrom the seller: Great car, one owner! Full service history. New tyres 2023. Price 12.5k."
        );
        let bare = CarFacts::default();
        assert_eq!(Builtin::enhanced(" one owner ", &bare), "One owner.");
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
        let mut facts = PriceFacts {
            car: corolla(),
            current_price: 16_500.0,
            market_average: Some(15_000.0),
            comparables: 3,
            minimum: 3,
            basis: "the same make and model".into(),
            years: (2016, 2022),
            mileage_km: (12_000, 72_000),
        };
        let words = Builtin::price_words(&facts);
        assert_eq!(words.analysis, "The asking price of 16,500 is 10.0% above the market average of 15,000 across 3 comparable listings (the same make and model, model years 2016 to 2022, 12,000 to 72,000 km).");
        assert_eq!(
            words.recommendation,
            "The price is in line with the market; keep it."
        );
        // The built-in words pass the checks a model's words must pass.
        let checked = |w: &PriceWords, f: &PriceFacts| {
            for t in [&w.analysis, &w.recommendation] {
                guard::figures_agree(t, &f.figures()).unwrap();
                guard::standing_agrees(t, f.standing()).unwrap();
            }
        };
        checked(&words, &facts);
        facts.current_price = 5_500.0;
        checked(&Builtin::price_words(&facts), &facts);
        facts.market_average = None;
        facts.comparables = 1;
        let words = Builtin::price_words(&facts);
        assert_eq!(words.analysis, "Not enough data to price the 2019 Toyota Corolla: 1 comparable listing found (the same make and model, model years 2016 to 2022, 12,000 to 72,000 km), and a market average needs at least 3.");
        checked(&words, &facts);
    }
}
