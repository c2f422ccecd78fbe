//! The 249 ISO 3166-1 countries and the largest cities of some of them, compiled in from
//! committed JSON (each file names its source; scripts/places/ regenerates them) and parsed
//! once on first use.
//!
//! A country's `id` is its ISO 3166-1 numeric code as three digits ("826"): a standard code,
//! distinct in form from the alpha codes so one lookup takes any of the three.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::LazyLock;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Country {
    /// ISO 3166-1 numeric, three digits.
    pub id: String,
    pub alpha2: String,
    pub alpha3: String,
    /// Common English name ("United Kingdom", "Ivory Coast").
    pub name: String,
    /// The primary international calling prefix with its plus ("+44"; "+1809" for the
    /// Dominican Republic, the first of its three).
    pub dial_code: String,
    /// ISO 4217 code of the main currency; None where there is none (Antarctica).
    pub currency: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct City {
    /// The GeoNames id.
    pub id: String,
    pub name: String,
    pub population: u64,
    pub country_alpha2: String,
    pub latitude: f64,
    pub longitude: f64,
}

#[derive(Deserialize)]
struct CountriesFile {
    countries: Vec<Country>,
}

#[derive(Deserialize)]
struct CitiesFile {
    cities: Vec<City>,
}

#[derive(Default)]
struct Places {
    /// By name.
    countries: Vec<Country>,
    /// Upper-case alpha-2, alpha-3 and the id, each to its country's index.
    index: HashMap<String, usize>,
    /// Per country index, most populous first.
    cities: Vec<Vec<City>>,
}

static PLACES: LazyLock<Places> = LazyLock::new(|| {
    parse(include_str!("countries.json"), include_str!("cities.json"))
        // The files are compiled in and a unit test parses them: failing here is a broken build.
        .unwrap_or_else(|e| {
            tracing::error!(error = %e, "places data does not parse; serving no countries");
            Places::default()
        })
});

fn parse(countries: &str, cities: &str) -> Result<Places, serde_json::Error> {
    let countries = serde_json::from_str::<CountriesFile>(countries)?.countries;
    let mut index = HashMap::with_capacity(countries.len() * 3);
    for (i, c) in countries.iter().enumerate() {
        for key in [&c.alpha2, &c.alpha3, &c.id] {
            index.insert(key.to_ascii_uppercase(), i);
        }
    }
    let mut by_country = vec![Vec::new(); countries.len()];
    for city in serde_json::from_str::<CitiesFile>(cities)?.cities {
        if let Some(&i) = index.get(&city.country_alpha2) {
            by_country[i].push(city);
        }
    }
    for list in &mut by_country {
        list.sort_by_key(|c| std::cmp::Reverse(c.population));
    }
    Ok(Places {
        countries,
        index,
        cities: by_country,
    })
}

/// Every country, by name.
pub fn countries() -> &'static [Country] {
    &PLACES.countries
}

/// The country with this alpha-2 code, alpha-3 code or id, in any case, spaces around
/// ignored.
pub fn country(code_or_id: &str) -> Option<&'static Country> {
    let key = code_or_id.trim();
    // No code is longer; this also bounds the work a caller's string can cause.
    if key.is_empty() || key.len() > 3 {
        return None;
    }
    let places = &*PLACES;
    places
        .index
        .get(&key.to_ascii_uppercase())
        .map(|&i| &places.countries[i])
}

/// The country's largest cities, most populous first (empty for most countries: the data
/// covers those the service launches in).
pub fn cities(country: &Country) -> &'static [City] {
    let places = &*PLACES;
    places
        .index
        .get(&country.alpha2)
        .map_or(&[], |&i| places.cities[i].as_slice())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    const LAUNCH: [&str; 10] = ["US", "GB", "DE", "FR", "NG", "KE", "GH", "ZA", "IN", "BR"];

    #[test]
    fn the_data_files_parse() {
        parse(include_str!("countries.json"), include_str!("cities.json")).unwrap();
    }

    #[test]
    fn all_249_countries_with_unique_well_formed_codes() {
        let all = countries();
        assert_eq!(all.len(), 249);
        for (field, len, digits) in [("alpha2", 2, false), ("alpha3", 3, false), ("id", 3, true)] {
            let values: HashSet<&str> = all
                .iter()
                .map(|c| match field {
                    "alpha2" => c.alpha2.as_str(),
                    "alpha3" => c.alpha3.as_str(),
                    _ => c.id.as_str(),
                })
                .collect();
            assert_eq!(values.len(), 249, "{field} not unique");
            for v in values {
                assert_eq!(v.len(), len, "{field} {v}");
                let ok = if digits {
                    v.bytes().all(|b| b.is_ascii_digit())
                } else {
                    v.bytes().all(|b| b.is_ascii_uppercase())
                };
                assert!(ok, "{field} {v}");
            }
        }
        for c in all {
            assert!(!c.name.is_empty());
            assert!(
                c.dial_code.starts_with('+') && c.dial_code.len() > 1,
                "{c:?}"
            );
            assert!(
                c.dial_code[1..].bytes().all(|b| b.is_ascii_digit()),
                "{c:?}"
            );
            if let Some(cur) = &c.currency {
                assert!(
                    cur.len() == 3 && cur.bytes().all(|b| b.is_ascii_uppercase()),
                    "{c:?}"
                );
            }
        }
        // Only Antarctica has no currency.
        let without: Vec<_> = all.iter().filter(|c| c.currency.is_none()).collect();
        assert_eq!(without.len(), 1);
        assert_eq!(without[0].alpha2, "AQ");
        // No user-assigned code (Kosovo's XK is not ISO 3166-1).
        assert!(country("XK").is_none());
    }

    #[test]
    fn lookups_take_any_code_in_any_case() {
        let gb = country("GB").unwrap();
        for key in ["gb", "Gb", " GB ", "GBR", "gbr", "826", "\t826\n"] {
            assert_eq!(country(key), Some(gb), "{key:?}");
        }
        assert_eq!(gb.name, "United Kingdom");
        for key in ["", "  ", "G", "GBRR", "UK", "999", "8260", "ZZ"] {
            assert_eq!(country(key), None, "{key:?}");
        }
        assert_eq!(country("004").unwrap().alpha2, "AF");
    }

    #[test]
    fn dial_codes_and_currencies() {
        for (code, dial, currency) in [
            ("GB", "+44", "GBP"),
            ("NG", "+234", "NGN"),
            ("US", "+1", "USD"),
            ("KE", "+254", "KES"),
            ("DE", "+49", "EUR"),
            ("IN", "+91", "INR"),
            ("DO", "+1809", "DOP"),
        ] {
            let c = country(code).unwrap();
            assert_eq!(c.dial_code, dial, "{code}");
            assert_eq!(c.currency.as_deref(), Some(currency), "{code}");
        }
    }

    #[test]
    fn ten_cities_for_each_launch_country_largest_first() {
        for code in LAUNCH {
            let country = country(code).unwrap();
            let list = cities(country);
            assert!(list.len() >= 10, "{code}: {}", list.len());
            assert!(
                list.windows(2).all(|w| w[0].population >= w[1].population),
                "{code} not in descending population"
            );
            assert!(list
                .iter()
                .all(|c| c.country_alpha2 == code && c.population > 0));
        }
        let ids: HashSet<&str> = LAUNCH
            .iter()
            .flat_map(|code| cities(country(code).unwrap()).iter().map(|c| c.id.as_str()))
            .collect();
        assert_eq!(ids.len(), LAUNCH.len() * 10, "city ids not unique");
        assert_eq!(cities(country("NG").unwrap())[0].name, "Lagos");
        assert_eq!(cities(country("GB").unwrap())[0].name, "London");
        assert!(cities(country("FR").unwrap())
            .iter()
            .all(|c| !c.name.starts_with("Paris ")));
        assert!(cities(country("AQ").unwrap()).is_empty());
    }

    #[test]
    fn serialises_in_camel_case() {
        let v = serde_json::to_value(country("ng").unwrap()).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"id": "566", "alpha2": "NG", "alpha3": "NGA", "name": "Nigeria",
                "dialCode": "+234", "currency": "NGN"})
        );
        let lagos = serde_json::to_value(&cities(country("NG").unwrap())[0]).unwrap();
        assert_eq!(lagos["countryAlpha2"], "NG");
        assert!(lagos["population"].as_u64().unwrap() > 1_000_000);
    }
}
