//! TEMPORARY stand-in until the places data lands (same API).

use serde::Serialize;

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Country {
    pub id: &'static str,
    pub alpha2: &'static str,
    pub alpha3: &'static str,
    pub name: &'static str,
    pub dial_code: &'static str,
    pub currency: &'static str,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct City {
    pub id: &'static str,
    pub name: &'static str,
    pub population: u64,
    pub country_alpha2: &'static str,
}

static COUNTRIES: [Country; 3] = [
    Country {
        id: "gb",
        alpha2: "GB",
        alpha3: "GBR",
        name: "United Kingdom",
        dial_code: "+44",
        currency: "GBP",
    },
    Country {
        id: "de",
        alpha2: "DE",
        alpha3: "DEU",
        name: "Germany",
        dial_code: "+49",
        currency: "EUR",
    },
    Country {
        id: "us",
        alpha2: "US",
        alpha3: "USA",
        name: "United States",
        dial_code: "+1",
        currency: "USD",
    },
];

pub fn countries() -> &'static [Country] {
    &COUNTRIES
}

pub fn country(code: &str) -> Option<&'static Country> {
    let c = code.trim();
    COUNTRIES.iter().find(|x| {
        x.id.eq_ignore_ascii_case(c)
            || x.alpha2.eq_ignore_ascii_case(c)
            || x.alpha3.eq_ignore_ascii_case(c)
    })
}

pub fn cities(_country: &Country) -> &'static [City] {
    &[]
}
