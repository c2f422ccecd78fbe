//! The built-in reading of a search sentence such as "family SUV under 30k, automatic, low
//! mileage": word lists for body types, fuels, gearboxes, conditions and features, patterns
//! for prices, years and mileage, and the listed makes and models. Pure, so it is tested here.

use super::interpretation::{Interpretation, Vocabulary};

/// What "low mileage" means: at most this many kilometres.
pub const LOW_MILEAGE_KM: i64 = 50_000;
const KM_PER_MILE: f64 = 1.609_344;

/// Words (singular, lowercase) naming a body type, and the type.
const BODY_WORDS: &[(&str, &str)] = &[
    ("suv", "SUV"),
    ("crossover", "Crossover"),
    ("sedan", "Sedan"),
    ("saloon", "Sedan"),
    ("hatchback", "Hatchback"),
    ("hatch", "Hatchback"),
    ("coupe", "Coupe"),
    ("convertible", "Convertible"),
    ("cabriolet", "Convertible"),
    ("cabrio", "Convertible"),
    ("roadster", "Convertible"),
    ("pickup", "Pickup"),
    ("truck", "Pickup"),
    ("ute", "Pickup"),
    ("wagon", "Wagon"),
    ("estate", "Wagon"),
    ("minivan", "Minivan"),
    ("mpv", "Minivan"),
    ("van", "Van"),
];
/// "family" alone asks for room: an SUV (the most listed family body).
const FAMILY_BODY: &str = "SUV";

const FUEL_WORDS: &[(&str, &str)] = &[
    ("petrol", "Petrol"),
    ("gasoline", "Petrol"),
    ("gas", "Petrol"),
    ("diesel", "Diesel"),
    ("electric", "Electric"),
    ("ev", "Electric"),
    ("hybrid", "Hybrid"),
];

const TRANSMISSION_WORDS: &[(&str, &str)] = &[
    ("automatic", "Automatic"),
    ("auto", "Automatic"),
    ("manual", "Manual"),
    ("stick", "Manual"),
];

const CONDITION_WORDS: &[(&str, &str)] = &[
    ("certified", "Certified Pre-Owned"),
    ("cpo", "Certified Pre-Owned"),
    ("used", "Used"),
    ("new", "New"),
];

/// Colour words, and the colour as listings usually spell it.
const COLOUR_WORDS: &[(&str, &str)] = &[
    ("black", "Black"),
    ("white", "White"),
    ("silver", "Silver"),
    ("grey", "Grey"),
    ("gray", "Grey"),
    ("red", "Red"),
    ("blue", "Blue"),
    ("green", "Green"),
    ("yellow", "Yellow"),
    ("orange", "Orange"),
    ("brown", "Brown"),
    ("beige", "Beige"),
    ("gold", "Gold"),
    ("purple", "Purple"),
    ("maroon", "Maroon"),
    ("burgundy", "Burgundy"),
];

/// The colour named `colour`, as [`COLOUR_WORDS`] spell it, if it is one.
pub fn colour(colour: &str) -> Option<&'static str> {
    lookup(COLOUR_WORDS, &colour.trim().to_lowercase()).or_else(|| {
        COLOUR_WORDS
            .iter()
            .map(|(_, c)| *c)
            .find(|c| c.eq_ignore_ascii_case(colour.trim()))
    })
}

/// The lowercase words a listing's colour text may use for `colour` ("grey" and "gray").
pub fn colour_words(colour: &str) -> Vec<&'static str> {
    COLOUR_WORDS
        .iter()
        .filter(|(_, c)| c.eq_ignore_ascii_case(colour))
        .map(|(w, _)| *w)
        .collect()
}

/// Phrases (as word sequences) naming a feature, and the feature as listings spell it.
const FEATURE_PHRASES: &[(&str, &str)] = &[
    ("panoramic roof", "Sunroof"),
    ("sunroof", "Sunroof"),
    ("moonroof", "Sunroof"),
    ("leather", "Leather"),
    ("apple carplay", "Apple CarPlay"),
    ("carplay", "Apple CarPlay"),
    ("android auto", "Android Auto"),
    ("navigation", "Navigation"),
    ("sat nav", "Navigation"),
    ("gps", "Navigation"),
    ("backup camera", "Backup Camera"),
    ("reverse camera", "Backup Camera"),
    ("rear camera", "Backup Camera"),
    ("bluetooth", "Bluetooth"),
    ("heated seats", "Heated Seats"),
    ("third row", "Third Row"),
    ("3rd row", "Third Row"),
    ("7 seats", "Third Row"),
    ("seven seats", "Third Row"),
    ("awd", "All-Wheel Drive"),
    ("all wheel drive", "All-Wheel Drive"),
    ("4wd", "All-Wheel Drive"),
    ("4x4", "All-Wheel Drive"),
    ("cruise control", "Cruise Control"),
    ("parking sensors", "Parking Sensors"),
    ("keyless", "Keyless Entry"),
    ("tow hitch", "Tow Hitch"),
    ("towing", "Tow Hitch"),
    ("blind spot", "Blind Spot Monitoring"),
];

/// Other names of makes.
const MAKE_ALIASES: &[(&str, &str)] = &[
    ("chevy", "chevrolet"),
    ("vw", "volkswagen"),
    ("merc", "mercedes-benz"),
    ("mercedes", "mercedes-benz"),
    ("beemer", "bmw"),
];

const PRICE_MAX: &[&str] = &[
    "under", "below", "max", "maximum", "upto", "budget", "within", "cheaper", "less",
];
const PRICE_MIN: &[&str] = &["over", "above", "min", "minimum", "more", "least"];
const YEAR_MIN_AFTER: &[&str] = &["after", "newer"];
const YEAR_MIN_FROM: &[&str] = &["since", "from"];
const YEAR_MAX_BEFORE: &[&str] = &["before", "older"];
const KM_WORDS: &[&str] = &["km", "kms", "kilometers", "kilometres"];
const MILE_WORDS: &[&str] = &["mile", "miles", "mi"];

/// The query's words: lowercase, thousands separators and currency signs gone, "30k" kept
/// as one word, "pick-up" and "all-wheel" split.
fn words(query: &str) -> Vec<String> {
    let chars: Vec<char> = query.to_lowercase().chars().collect();
    let mut clean = String::with_capacity(chars.len());
    for (i, c) in chars.iter().enumerate() {
        let digit_at = |j: Option<usize>| {
            j.and_then(|j| chars.get(j))
                .is_some_and(char::is_ascii_digit)
        };
        if *c == ',' && digit_at(i.checked_sub(1)) && digit_at(Some(i + 1)) {
            continue;
        }
        if c.is_alphanumeric() {
            clean.push(*c);
        } else {
            clean.push(' ');
        }
    }
    let mut out: Vec<String> = clean.split_whitespace().map(str::to_owned).collect();
    // "pick up" is one word in the lists.
    if let Some(i) = out.windows(2).position(|w| w[0] == "pick" && w[1] == "up") {
        out.splice(i..i + 2, ["pickup".to_owned()]);
    }
    out
}

/// `w` without a plural "s" ("suvs", "trucks"), unless that is all there is.
fn singular(w: &str) -> &str {
    match w.strip_suffix('s') {
        Some(s) if s.len() >= 2 && !w.ends_with("ss") => s,
        _ => w,
    }
}

fn lookup(table: &[(&str, &'static str)], w: &str) -> Option<&'static str> {
    table
        .iter()
        .find(|(k, _)| *k == w || *k == singular(w))
        .map(|(_, v)| *v)
}

/// A number at `i`: "30000", "30k", "30 k", "30 thousand", "1.5m"; with how many words it
/// took.
fn amount(ws: &[String], i: usize) -> Option<(f64, usize)> {
    let w = ws.get(i)?;
    let (digits, suffix) = w.split_at(w.find(|c: char| !c.is_ascii_digit()).unwrap_or(w.len()));
    let n: f64 = digits.parse().ok()?;
    let scale = |s: &str| match s {
        "k" | "thousand" | "grand" => Some(1_000.0),
        "m" | "million" => Some(1_000_000.0),
        _ => None,
    };
    match suffix {
        "" => match ws.get(i + 1).and_then(|s| scale(s)) {
            Some(f) => Some((n * f, 2)),
            None => Some((n, 1)),
        },
        s => scale(s).map(|f| (n * f, 1)),
    }
}

/// A four-digit model year at `i`.
fn year_at(ws: &[String], i: usize) -> Option<i32> {
    let w = ws.get(i)?;
    let y: i32 = w.parse().ok().filter(|_| w.len() == 4)?;
    (1950..=2100).contains(&y).then_some(y)
}

/// Kilometres if the amount at `i` (taking `used` words) is a distance.
fn distance(ws: &[String], i: usize, used: usize, n: f64) -> Option<i64> {
    let unit = ws.get(i + used).map(String::as_str)?;
    if KM_WORDS.contains(&unit) {
        Some(n.round() as i64)
    } else if MILE_WORDS.contains(&unit) {
        Some((n * KM_PER_MILE).round() as i64)
    } else {
        None
    }
}

/// Whether the words from `i` spell `phrase`.
fn phrase_at(ws: &[String], i: usize, phrase: &str) -> bool {
    let p: Vec<&str> = phrase.split([' ', '-']).collect();
    p.len() <= ws.len() - i
        && p.iter()
            .zip(&ws[i..])
            .all(|(a, b)| *a == b || *a == singular(b))
}

/// A query read as filters, and its words that named none (in order, lowercase).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reading {
    pub filters: Interpretation,
    /// Words no filter, sort or make and model took: left for a text search (feature words
    /// are among them as well as in `filters`).
    pub rest: Vec<String>,
}

/// The filters `query` asks for, in `vocab`'s spelling.
pub fn interpret(query: &str, vocab: &Vocabulary) -> Interpretation {
    read(query, vocab).filters
}

/// [`interpret`], with the words it did not use.
pub fn read(query: &str, vocab: &Vocabulary) -> Reading {
    let ws = words(query);
    let mut used = vec![false; ws.len()];
    let mut q = Interpretation::default();
    let mut family = false;
    let mut low_mileage = false;
    let mut i = 0;
    while i < ws.len() {
        let w = ws[i].as_str();
        let next = ws.get(i + 1).map(String::as_str);
        if let Some(b) = lookup(BODY_WORDS, w) {
            q.body_type.get_or_insert_with(|| b.to_owned());
            used[i] = true;
        } else if w == "family" {
            family = true;
            used[i] = true;
        } else if let Some(f) = lookup(FUEL_WORDS, w) {
            q.fuel_type.get_or_insert_with(|| f.to_owned());
            used[i] = true;
        } else if let Some(t) = lookup(TRANSMISSION_WORDS, w).filter(|_| {
            // "android auto" is a feature.
            i == 0 || ws[i - 1] != "android"
        }) {
            q.transmission.get_or_insert_with(|| t.to_owned());
            used[i] = true;
        } else if let Some(c) = lookup(COLOUR_WORDS, w) {
            q.color.get_or_insert_with(|| c.to_owned());
            used[i] = true;
        } else if (w == "low" || w == "lower")
            && next.is_some_and(|n| {
                n.starts_with("mileage") || KM_WORDS.contains(&n) || MILE_WORDS.contains(&n)
            })
        {
            low_mileage = true;
            used[i..i + 2].fill(true);
        } else if w == "between" {
            let lo = amount(&ws, i + 1);
            let hi = lo.and_then(|(_, u)| {
                let j = i + 1 + u;
                (ws.get(j).map(String::as_str) == Some("and"))
                    .then(|| amount(&ws, j + 1))
                    .flatten()
                    .map(|a| (a, j + 1))
            });
            if let (Some((lo, _)), Some(((hi, u), j))) = (lo, hi) {
                let (lo, hi) = if lo <= hi { (lo, hi) } else { (hi, lo) };
                if let Some(km) = distance(&ws, j, u, hi) {
                    q.max_mileage = Some(km);
                } else if year_at(&ws, i + 1).is_some() && year_at(&ws, j).is_some() {
                    q.min_year = Some(lo as i32);
                    q.max_year = Some(hi as i32);
                } else {
                    q.min_price = Some(lo);
                    q.max_price = Some(hi);
                }
                used[i..(j + u).min(ws.len())].fill(true);
                i = j + u;
                continue;
            }
        } else if let Some(y) = year_at(&ws, i) {
            // "2018 or newer", "2018 or later", "2015 or older", else a model year.
            let took = match (next, ws.get(i + 2).map(String::as_str)) {
                (Some("or"), Some("newer" | "later" | "above")) => {
                    q.min_year = Some(y);
                    3
                }
                (Some("or"), Some("older" | "earlier")) => {
                    q.max_year = Some(y);
                    3
                }
                (Some("and"), Some("newer" | "later" | "up")) => {
                    q.min_year = Some(y);
                    3
                }
                _ => {
                    q.min_year = Some(y);
                    q.max_year = Some(y);
                    1
                }
            };
            used[i..i + took].fill(true);
            i += 1;
            continue;
        } else if YEAR_MIN_AFTER.contains(&w)
            || YEAR_MIN_FROM.contains(&w)
            || YEAR_MAX_BEFORE.contains(&w)
        {
            // "newer than 2015", "after 2015", "since 2015", "before 2010".
            let j = if next == Some("than") { i + 2 } else { i + 1 };
            if let Some(y) = year_at(&ws, j) {
                if YEAR_MIN_AFTER.contains(&w) {
                    q.min_year = Some(y + 1);
                } else if YEAR_MIN_FROM.contains(&w) {
                    q.min_year = Some(y);
                } else {
                    q.max_year = Some(y - 1);
                }
                used[i..=j].fill(true);
                i = j + 1;
                continue;
            }
        }
        let price_max = PRICE_MAX.contains(&w) || (w == "up" && next == Some("to"));
        let price_min = PRICE_MIN.contains(&w);
        if price_max || price_min {
            // "under 30k", "less than $25,000", "at least 10000", "under 50,000 km".
            let mut j = i + 1;
            while ws
                .get(j)
                .is_some_and(|x| ["than", "to", "of", "price", "budget"].contains(&x.as_str()))
            {
                j += 1;
            }
            if let Some((n, u)) = amount(&ws, j) {
                match distance(&ws, j, u, n) {
                    Some(km) if price_max => q.max_mileage = Some(km),
                    Some(_) => {}
                    None if price_max => q.max_price = Some(n),
                    None => q.min_price = Some(n),
                }
                // With its unit ("under 50,000 km"), if any.
                let end = (j + u + usize::from(distance(&ws, j, u, n).is_some())).min(ws.len());
                used[i..end].fill(true);
                i = j + u;
                continue;
            }
        }
        if let Some(c) = lookup(CONDITION_WORDS, w) {
            q.condition.get_or_insert_with(|| c.to_owned());
            used[i] = true;
        }
        if ["cheap", "cheapest", "affordable", "inexpensive"].contains(&w) {
            q.sort_by.get_or_insert_with(|| "price:asc".to_owned());
            used[i] = true;
        } else if ["newest", "latest"].contains(&w) {
            q.sort_by.get_or_insert_with(|| "year:desc".to_owned());
            used[i] = true;
        }
        i += 1;
    }
    for start in 0..ws.len() {
        for (phrase, feature) in FEATURE_PHRASES {
            if phrase_at(&ws, start, phrase) && !q.priority_features.iter().any(|f| f == feature) {
                q.priority_features.push((*feature).to_owned());
            }
        }
    }
    if low_mileage && q.max_mileage.is_none() {
        q.max_mileage = Some(LOW_MILEAGE_KM);
    }
    if family && q.body_type.is_none() {
        q.body_type = Some(FAMILY_BODY.to_owned());
    }
    // Contradictory bounds ("2018 or newer before 2010") keep the lower bound only.
    if q.min_year.zip(q.max_year).is_some_and(|(lo, hi)| lo > hi) {
        q.max_year = None;
    }
    if q.min_price.zip(q.max_price).is_some_and(|(lo, hi)| lo > hi) {
        q.max_price = None;
    }
    listed_make_and_model(&ws, vocab, &mut q);
    let rest = ws
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|(w, _)| w.clone())
        .collect();
    Reading {
        // Spell every choice as the vocabulary does (all of these are in it by construction).
        filters: q.checked(vocab).unwrap_or_default(),
        rest,
    }
}

/// The first listed make (or another name of it) and model the words name.
fn listed_make_and_model(ws: &[String], vocab: &Vocabulary, q: &mut Interpretation) {
    let names = |s: &str| {
        let s = s.to_lowercase();
        (0..ws.len()).any(|i| phrase_at(ws, i, &s))
            || MAKE_ALIASES
                .iter()
                .any(|(alias, make)| *make == s && ws.iter().any(|w| w == alias))
    };
    q.make = vocab
        .listed
        .iter()
        .find(|(make, _)| names(make))
        .map(|(make, _)| make.clone());
    let model = vocab
        .listed
        .iter()
        .find(|(make, model)| q.make.as_ref().is_none_or(|m| m == make) && names(model));
    if let Some((make, model)) = model {
        q.make = Some(make.clone());
        q.model = Some(model.clone());
    }
}

// The checks of a model's reading live beside the built-in reader, whose words they use.
impl Interpretation {
    /// `self` with every named value in `vocab`'s spelling, or why it cannot be used.
    pub fn checked(self, vocab: &Vocabulary) -> Result<Self, String> {
        let choice = |name: &str, values: &[&'static str], v: Option<String>| {
            v.map(|v| {
                Vocabulary::spelled(values, &v)
                    .map(str::to_owned)
                    .ok_or(format!("{name} {v:?} is not one of {}", values.join(", ")))
            })
            .transpose()
        };
        let (mut make, mut model) = (None, None);
        if let Some(m) = &self.make {
            make = Some(vocab.make(m).ok_or(format!("make {m:?} is not listed"))?);
        }
        if let Some(m) = &self.model {
            let (mk, md) = vocab.model(m).ok_or(format!("model {m:?} is not listed"))?;
            make = make.or(Some(mk));
            model = Some(md);
        }
        let non_negative = [self.min_price, self.max_price]
            .iter()
            .flatten()
            .all(|p| p.is_finite() && *p >= 0.0)
            && self.max_mileage.is_none_or(|m| m >= 0);
        let ordered = |lo: Option<f64>, hi: Option<f64>| match (lo, hi) {
            (Some(lo), Some(hi)) => lo <= hi,
            _ => true,
        };
        let years = [self.min_year, self.max_year]
            .iter()
            .flatten()
            .all(|y| (1900..=2100).contains(y));
        if !non_negative
            || !years
            || !ordered(self.min_price, self.max_price)
            || !ordered(self.min_year.map(f64::from), self.max_year.map(f64::from))
        {
            return Err("a price, year or mileage is out of range".into());
        }
        if let Some(s) = &self.sort_by {
            if !["price:asc", "price:desc", "year:desc", "mileage:asc"].contains(&s.as_str()) {
                return Err(format!("sortBy {s:?} is not a known sort"));
            }
        }
        let color = self
            .color
            .as_deref()
            .map(|c| colour(c).ok_or(format!("color {c:?} is not a known colour")))
            .transpose()?
            .map(str::to_owned);
        let features = self
            .priority_features
            .iter()
            .map(|f| f.trim())
            .filter(|f| !f.is_empty() && f.chars().count() <= 60)
            .take(10)
            .map(str::to_owned)
            .collect();
        Ok(Self {
            make,
            model,
            body_type: choice("bodyType", vocab.body_types, self.body_type)?,
            fuel_type: choice("fuelType", vocab.fuel_types, self.fuel_type)?,
            transmission: choice("transmission", vocab.transmissions, self.transmission)?,
            condition: choice("condition", vocab.conditions, self.condition)?,
            priority_features: features,
            color,
            ..self
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab() -> Vocabulary {
        Vocabulary {
            listed: vec![
                ("Toyota".into(), "RAV4".into()),
                ("Toyota".into(), "Corolla".into()),
                ("Chevrolet".into(), "Silverado".into()),
                ("Land Rover".into(), "Defender".into()),
            ],
            body_types: &["SUV", "Pickup"],
            fuel_types: &["Petrol", "Diesel", "Electric", "Hybrid"],
            transmissions: &["Manual", "Automatic"],
            conditions: &["New", "Used", "Certified Pre-Owned"],
        }
    }

    #[test]
    fn the_issue_example_is_read_whole() {
        let q = interpret("family SUV under 30k, automatic, low mileage", &vocab());
        assert_eq!(q.body_type.as_deref(), Some("SUV"));
        assert_eq!(q.max_price, Some(30_000.0));
        assert_eq!(q.transmission.as_deref(), Some("Automatic"));
        assert_eq!(q.max_mileage, Some(LOW_MILEAGE_KM));
    }

    #[test]
    fn prices_years_and_distances_are_told_apart() {
        let v = vocab();
        let q = interpret("below $25,000 2018 or newer under 80,000 km", &v);
        assert_eq!(
            (q.max_price, q.min_year, q.max_mileage),
            (Some(25_000.0), Some(2018), Some(80_000))
        );
        let q = interpret("between 10k and 20k after 2015", &v);
        assert_eq!(
            (q.min_price, q.max_price, q.min_year),
            (Some(10_000.0), Some(20_000.0), Some(2016))
        );
        let q = interpret("under 30000 miles", &v);
        assert_eq!(q.max_mileage, Some(48_280));
        assert_eq!(q.max_price, None);
    }

    #[test]
    fn makes_models_aliases_and_features() {
        let q = interpret("chevy truck with leather and apple carplay", &vocab());
        assert_eq!(q.make.as_deref(), Some("Chevrolet"));
        assert_eq!(q.body_type.as_deref(), Some("Pickup"));
        assert_eq!(q.priority_features, vec!["Leather", "Apple CarPlay"]);
        let q = interpret("used land rover defender", &vocab());
        assert_eq!(
            (q.make.as_deref(), q.model.as_deref()),
            (Some("Land Rover"), Some("Defender"))
        );
        assert_eq!(q.condition.as_deref(), Some("Used"));
        let q = interpret("rav4 hybrid", &vocab());
        assert_eq!(
            (q.make.as_deref(), q.fuel_type.as_deref()),
            (Some("Toyota"), Some("Hybrid"))
        );
    }

    #[test]
    fn contradictory_bounds_keep_the_lower_one() {
        let q = interpret("2018 or newer before 2010 over 30k under 10k suv", &vocab());
        assert_eq!((q.min_year, q.max_year), (Some(2018), None));
        assert_eq!((q.min_price, q.max_price), (Some(30_000.0), None));
        assert_eq!(q.body_type.as_deref(), Some("SUV"));
    }

    #[test]
    fn the_words_no_filter_took_are_left() {
        let r = read(
            "red Ford F-150 2019 under 10,000 km automatic sunroof",
            &vocab(),
        );
        assert_eq!(r.filters.color.as_deref(), Some("Red"));
        assert_eq!(
            (r.filters.min_year, r.filters.max_year),
            (Some(2019), Some(2019))
        );
        assert_eq!(r.filters.max_mileage, Some(10_000));
        assert_eq!(r.filters.transmission.as_deref(), Some("Automatic"));
        assert_eq!(r.rest, ["ford", "f", "150", "sunroof"]);
        let r = read("toyota under 10000 2018 or newer", &vocab());
        assert_eq!(r.filters.max_price, Some(10_000.0));
        assert_eq!(r.filters.min_year, Some(2018));
        assert_eq!(r.rest, ["toyota"]);
        assert_eq!(colour_words("Grey"), ["grey", "gray"]);
        assert_eq!(colour("GRAY"), Some("Grey"));
    }

    #[test]
    fn nothing_recognised_is_an_empty_reading() {
        assert_eq!(
            interpret("something nice", &vocab()),
            Interpretation::default()
        );
    }
}
