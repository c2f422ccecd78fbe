//! The AI helpers: each endpoint on the built-in writer (answers, bad input, roles), the
//! natural-language reading of many queries and its relaxation, and the OpenAI-compatible
//! adapter against a fake model server, including its fall back to the built-in writer.

use super::*;
use crate::helpers::TestApp;
use reqwest::Method;
use std::time::Duration;
use wiremock::matchers::{body_string_contains, header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// The built-in writer with the AI limit out of the way.
async fn ai_app() -> TestApp {
    app_with(|s| s.services.marketplace.rate_limits.ai.limit = 10_000).await
}

/// The OpenAI-compatible writer on `model`, giving up after a second.
async fn model_app(model: &MockServer) -> TestApp {
    let base = format!("{}/v1", model.uri());
    app_with(move |s| {
        s.services.marketplace.rate_limits.ai.limit = 10_000;
        s.ai.provider = "openai".into();
        s.ai.base_url = base;
        s.ai.api_key = "sk-test".into();
        s.ai.model = "test-model".into();
        s.ai.timeout_secs = 1;
    })
    .await
}

/// A chat-completions answer whose content is `content`.
fn chat(content: Value) -> ResponseTemplate {
    let text = match content {
        Value::String(s) => s,
        other => format!("```json\n{other}\n```"),
    };
    ResponseTemplate::new(200).set_body_json(json!({
        "choices": [{"message": {"role": "assistant", "content": text}}]
    }))
}

async fn answer(model: &MockServer, prompt_part: &str, reply: ResponseTemplate) {
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(header("authorization", "Bearer sk-test"))
        .and(body_string_contains(prompt_part))
        .respond_with(reply)
        .mount(model)
        .await;
}

/// A fake model answering each prompt that contains the first text with the second.
async fn model_answering(replies: &[(&str, Value)]) -> MockServer {
    let model = MockServer::start().await;
    for (prompt_part, reply) in replies {
        answer(&model, prompt_part, chat(reply.clone())).await;
    }
    model
}

async fn ai(app: &TestApp, endpoint: &str, body: Value) -> Response {
    post(app, &format!("/ai/{endpoint}"), body).await
}

async fn ai_as(app: &TestApp, token: &str, endpoint: &str, body: Value) -> Response {
    send(
        app,
        Method::POST,
        &format!("/ai/{endpoint}"),
        token,
        Some(body),
    )
    .await
}

async fn ai_ok(app: &TestApp, endpoint: &str, body: Value) -> Value {
    assert_ok(ai(app, endpoint, body).await, 200).await
}

async fn ai_ok_as(app: &TestApp, token: &str, endpoint: &str, body: Value) -> Value {
    assert_ok(ai_as(app, token, endpoint, body).await, 200).await
}

async fn assert_invalid(res: Response, field: &str) {
    let v = assert_err(res, 400, "validation_error").await;
    assert_eq!(v["details"]["field"], field, "{v}");
}

/// A listing of the catalogue: `(make, model, year, price, km, fuel, gearbox, body,
/// features)`.
type Stocked = (
    &'static str,
    &'static str,
    i32,
    u32,
    u32,
    &'static str,
    &'static str,
    &'static str,
    &'static [&'static str],
);

/// The catalogue the searches and recommendations run against.
const CATALOGUE: &[Stocked] = &[
    (
        "Toyota",
        "RAV4",
        2020,
        28000,
        30000,
        "Hybrid",
        "Automatic",
        "SUV",
        &["Sunroof", "Apple CarPlay", "Backup Camera"],
    ),
    (
        "Honda",
        "CR-V",
        2017,
        21000,
        95000,
        "Petrol",
        "Automatic",
        "SUV",
        &["Leather Seats"],
    ),
    (
        "Ford",
        "F-150",
        2016,
        26000,
        120000,
        "Diesel",
        "Automatic",
        "Pickup",
        &["Tow Hitch", "All-Wheel Drive"],
    ),
    (
        "Toyota",
        "Corolla",
        2019,
        15500,
        42000,
        "Petrol",
        "Automatic",
        "Sedan",
        &["Bluetooth", "Backup Camera"],
    ),
    (
        "Volkswagen",
        "Golf",
        2015,
        9000,
        110000,
        "Diesel",
        "Manual",
        "Hatchback",
        &["Bluetooth"],
    ),
    (
        "Tesla",
        "Model 3",
        2021,
        35000,
        20000,
        "Electric",
        "Automatic",
        "Sedan",
        &["Navigation", "Heated Seats"],
    ),
    (
        "BMW",
        "3 Series",
        2018,
        24000,
        60000,
        "Petrol",
        "Automatic",
        "Wagon",
        &["Leather Seats", "Navigation"],
    ),
    (
        "Mazda",
        "MX-5",
        2014,
        12000,
        70000,
        "Petrol",
        "Manual",
        "Convertible",
        &[],
    ),
    (
        "Chrysler",
        "Pacifica",
        2019,
        27000,
        50000,
        "Hybrid",
        "Automatic",
        "Minivan",
        &["Third Row Seating"],
    ),
    (
        "Chevrolet",
        "Silverado",
        2012,
        14000,
        150000,
        "Petrol",
        "Manual",
        "Pickup",
        &[],
    ),
];

async fn stock(app: &TestApp) {
    let (token, _) = user(app).await;
    for (make, model, year, price, km, fuel, gearbox, body, features) in CATALOGUE {
        create_car(
            app,
            &token,
            json!({"make": make, "model": model, "year": year, "price": price, "mileage": km,
                   "fuelType": fuel, "transmission": gearbox, "bodyType": body,
                   "features": features, "condition": "Used"}),
        )
        .await;
    }
}

/// "Make Model" of each car in `cars`, sorted.
fn names(cars: &Value) -> Vec<String> {
    let mut v: Vec<String> = cars
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{} {}",
                c["make"].as_str().unwrap(),
                c["model"].as_str().unwrap()
            )
        })
        .collect();
    v.sort();
    v
}

/// An interpretation: every key null (or empty) except those of `set`.
fn reading(set: Value) -> Value {
    let mut q = json!({
        "make": null, "model": null, "bodyType": null, "minPrice": null, "maxPrice": null,
        "minYear": null, "maxYear": null, "maxMileage": null, "fuelType": null,
        "transmission": null, "condition": null, "priorityFeatures": [], "sortBy": null
    });
    for (k, v) in set.as_object().unwrap() {
        q[k] = v.clone();
    }
    q
}

const COROLLA: &str = r#"{"make": "Toyota", "model": "Corolla", "year": 2019, "mileage": 42000, "condition": "Used", "features": ["Bluetooth", "Backup Camera"]}"#;

fn corolla() -> Value {
    serde_json::from_str(COROLLA).unwrap()
}

#[actix_web::test]
async fn natural_language_queries_are_read_into_filters() {
    let app = ai_app().await;
    stock(&app).await;
    let cases = [
        (
            "family SUV under 30k, automatic, low mileage",
            json!({"bodyType": "SUV", "maxPrice": 30000.0, "transmission": "Automatic", "maxMileage": 50000}),
        ),
        (
            "truck under $30,000",
            json!({"bodyType": "Pickup", "maxPrice": 30000.0}),
        ),
        (
            "estate car with leather",
            json!({"bodyType": "Wagon", "priorityFeatures": ["Leather"]}),
        ),
        (
            "sedan below $25,000",
            json!({"bodyType": "Sedan", "maxPrice": 25000.0}),
        ),
        ("max 15000", json!({"maxPrice": 15000.0})),
        (
            "between 10k and 20k",
            json!({"minPrice": 10000.0, "maxPrice": 20000.0}),
        ),
        (
            "2018 or newer hybrid",
            json!({"minYear": 2018, "fuelType": "Hybrid"}),
        ),
        (
            "diesel after 2015",
            json!({"minYear": 2016, "fuelType": "Diesel"}),
        ),
        ("electric car", json!({"fuelType": "Electric"})),
        (
            "manual hatchback",
            json!({"transmission": "Manual", "bodyType": "Hatchback"}),
        ),
        ("under 50,000 km", json!({"maxMileage": 50000})),
        (
            "suvs under 30000 miles",
            json!({"bodyType": "SUV", "maxMileage": 48280}),
        ),
        (
            "toyota with sunroof and apple carplay",
            json!({"make": "Toyota", "priorityFeatures": ["Sunroof", "Apple CarPlay"]}),
        ),
        (
            "chevy pickup",
            json!({"make": "Chevrolet", "bodyType": "Pickup"}),
        ),
        (
            "tesla model 3",
            json!({"make": "Tesla", "model": "Model 3"}),
        ),
        (
            "convertible before 2016",
            json!({"bodyType": "Convertible", "maxYear": 2015}),
        ),
        (
            "cheapest automatic",
            json!({"transmission": "Automatic", "sortBy": "price:asc"}),
        ),
        (
            "minivan with third row",
            json!({"bodyType": "Minivan", "priorityFeatures": ["Third Row"]}),
        ),
        (
            "used bmw 3 series",
            json!({"make": "BMW", "model": "3 Series", "condition": "Used"}),
        ),
        (
            "petrol coupe over 20k",
            json!({"fuelType": "Petrol", "bodyType": "Coupe", "minPrice": 20000.0}),
        ),
        (
            "vw golf less than 10000",
            json!({"make": "Volkswagen", "model": "Golf", "maxPrice": 10000.0}),
        ),
        ("family car", json!({"bodyType": "SUV"})),
        (
            "awd crossover",
            json!({"bodyType": "Crossover", "priorityFeatures": ["All-Wheel Drive"]}),
        ),
        (
            "newest electric",
            json!({"fuelType": "Electric", "sortBy": "year:desc"}),
        ),
        ("something nice", json!({})),
    ];
    for (query, expected) in cases {
        let data = ai_ok(&app, "search-natural-language", json!({"query": query})).await;
        assert_eq!(data["interpretedQuery"], reading(expected), "{query}");
    }
}

#[actix_web::test]
async fn natural_language_search_answers_real_listings_and_says_what_it_relaxed() {
    let app = ai_app().await;
    stock(&app).await;
    let search = |q: &'static str| {
        let app = &app;
        async move { ai_ok(app, "search-natural-language", json!({"query": q})).await }
    };
    let v = search("family SUV under 30k, automatic, low mileage").await;
    assert_eq!(names(&v["results"]), ["Toyota RAV4"]);
    assert_eq!(v["relaxed"], json!([]));
    assert_eq!(v["totalResults"], 1);
    let car = &v["results"][0];
    assert_eq!(
        (
            car["year"].as_i64(),
            car["price"].as_f64(),
            car["fuelType"].as_str()
        ),
        (Some(2020), Some(28000.0), Some("Hybrid"))
    );
    assert!(car["_id"].as_str().is_some());

    let v = search("truck under $30,000").await;
    assert_eq!(names(&v["results"]), ["Chevrolet Silverado", "Ford F-150"]);
    let v = search("cheapest automatic").await;
    let prices: Vec<f64> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["price"].as_f64().unwrap())
        .collect();
    assert_eq!(
        prices,
        [15500.0, 21000.0, 24000.0, 26000.0, 27000.0, 28000.0, 35000.0]
    );

    // Features go first, then the price ceiling rises by a fifth.
    let v = search("SUV under 20k with sunroof").await;
    assert_eq!(v["relaxed"], json!(["priorityFeatures", "maxPrice"]));
    assert_eq!(v["appliedQuery"]["maxPrice"], 24000.0);
    assert_eq!(v["appliedQuery"]["priorityFeatures"], json!([]));
    assert_eq!(v["interpretedQuery"]["maxPrice"], 20000.0);
    assert_eq!(names(&v["results"]), ["Honda CR-V"]);
    // Steps without a constraint to relax are skipped.
    let v = search("convertible under 5000 km").await;
    assert_eq!(v["relaxed"], json!(["maxMileage"]));
    assert_eq!(names(&v["results"]), ["Mazda MX-5"]);
    let v = search("diesel minivan").await;
    assert_eq!(v["relaxed"], json!(["bodyType"]));
    assert_eq!(names(&v["results"]), ["Ford F-150", "Volkswagen Golf"]);
    // Make, model, year and fuel are never given up.
    let v = search("electric pickup before 2000").await;
    assert_eq!(v["relaxed"], json!(["bodyType"]));
    assert_eq!(v["results"], json!([]));

    let v = ai_ok(
        &app,
        "search-natural-language",
        json!({"query": "sedan", "limit": 1}),
    )
    .await;
    assert_eq!(
        (
            v["results"].as_array().unwrap().len(),
            v["totalResults"].as_u64()
        ),
        (1, Some(2))
    );
    assert_invalid(
        ai(&app, "search-natural-language", json!({})).await,
        "query",
    )
    .await;
    assert_invalid(
        ai(&app, "search-natural-language", json!({"query": "  "})).await,
        "query",
    )
    .await;
    assert_invalid(
        ai(
            &app,
            "search-natural-language",
            json!({"query": "x".repeat(501)}),
        )
        .await,
        "query",
    )
    .await;
}

#[actix_web::test]
async fn listing_text_and_enhancement_are_for_dealers_only() {
    let app = ai_app().await;
    let admin = admin_token(&app).await;
    let (dealer_token, _) = dealer(&app, &admin).await;
    let (user_token, _) = user(&app).await;

    let v = ai_ok_as(&app, &dealer_token, "generate-listing", corolla()).await;
    let description = v["description"].as_str().unwrap();
    assert!(
        description
            .starts_with("This 2019 Toyota Corolla is offered in used condition with 42,000 km"),
        "{v}"
    );
    assert!(description.contains("Bluetooth and Backup Camera"), "{v}");
    assert_eq!(v["highlights"][0], "2019 model year");
    assert!(
        v["highlights"]
            .as_array()
            .unwrap()
            .contains(&json!("Backup Camera")),
        "{v}"
    );

    let raw = "  great car  ,one owner!!  full service history\nnew tyres 2023. new tyres 2023.";
    let body = json!({"description": raw, "make": "Toyota", "model": "Corolla", "year": 2019});
    let v = ai_ok_as(&app, &dealer_token, "enhance-description", body.clone()).await;
    assert_eq!(
        v["description"],
        "2019 Toyota Corolla\n\nGreat car, one owner! Full service history. New tyres 2023."
    );

    for endpoint in ["generate-listing", "enhance-description"] {
        assert_err(
            ai_as(&app, &user_token, endpoint, body.clone()).await,
            403,
            "forbidden",
        )
        .await;
        assert_err(ai(&app, endpoint, body.clone()).await, 401, "invalid_token").await;
        assert_err(
            ai_as(&app, &admin, endpoint, body.clone()).await,
            403,
            "forbidden",
        )
        .await;
    }
    let mut missing = corolla();
    missing.as_object_mut().unwrap().remove("mileage");
    assert_invalid(
        ai_as(&app, &dealer_token, "generate-listing", missing).await,
        "mileage",
    )
    .await;
    let mut bad = corolla();
    bad["condition"] = json!("Pristine");
    assert_invalid(
        ai_as(&app, &dealer_token, "generate-listing", bad).await,
        "condition",
    )
    .await;
    bad = corolla();
    bad["year"] = json!(1850);
    assert_invalid(
        ai_as(&app, &dealer_token, "generate-listing", bad).await,
        "year",
    )
    .await;
    assert_invalid(
        ai_as(
            &app,
            &dealer_token,
            "generate-listing",
            json!({"model": "Corolla"}),
        )
        .await,
        "make",
    )
    .await;
    assert_invalid(
        ai_as(
            &app,
            &dealer_token,
            "enhance-description",
            json!({"make": "Toyota"}),
        )
        .await,
        "description",
    )
    .await;
}

#[actix_web::test]
async fn a_description_is_generated_from_the_facts_sent() {
    let app = ai_app().await;
    let body = json!({"make": "Toyota", "model": "Corolla", "year": 2019, "price": 15500,
        "mileage": 42000, "fuelType": "Petrol", "transmission": "Automatic", "bodyType": "Sedan",
        "exteriorColor": "Silver", "interiorColor": "black", "condition": "Used",
        "features": ["Bluetooth", "Backup Camera"]});
    let v = ai_ok(&app, "generate-car-description", body.clone()).await;
    assert_eq!(
        v["description"],
        "For sale: 2019 Toyota Corolla, an Automatic Petrol Sedan. It has Silver paint and a black interior. Condition: Used, with 42,000 km driven. Equipment includes Bluetooth and Backup Camera. Asking price: 15,500."
    );
    let v = ai_ok(
        &app,
        "generate-car-description",
        json!({"make": "Mazda", "model": "MX-5", "year": 2014}),
    )
    .await;
    assert_eq!(v["description"], "For sale: 2014 Mazda MX-5.");
    for (field, value) in [
        ("model", json!(null)),
        ("year", json!("old")),
        ("fuelType", json!("Steam")),
        ("price", json!(-1)),
    ] {
        let mut b = body.clone();
        b[field] = value;
        assert_invalid(ai(&app, "generate-car-description", b).await, field).await;
    }
}

#[actix_web::test]
async fn recommendations_score_real_listings_within_budget() {
    let app = ai_app().await;
    stock(&app).await;
    let body = json!({"budget": 30000, "preferences": {"fuelType": "Hybrid"},
                      "lifestyle": "I commute in the city every day"});
    let v = ai_ok(&app, "recommendations", body).await;
    assert_eq!(v["profile"]["lifestyles"], json!(["commute"]));
    let recs = v["recommendations"].as_array().unwrap();
    assert_eq!(v["considered"], 9, "{v}");
    assert_eq!(recs.len(), 9);
    assert_eq!(recs[0]["car"]["model"], "RAV4", "{v}");
    assert!(
        recs[0]["reasons"]
            .as_array()
            .unwrap()
            .contains(&json!("Matches your preferred fuel type: Hybrid")),
        "{v}"
    );
    assert!(recs
        .iter()
        .all(|r| r["car"]["price"].as_f64().unwrap() <= 30000.0));
    let scores: Vec<f64> = recs.iter().map(|r| r["score"].as_f64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");

    // A family's life ranks a minivan and an SUV with family features first.
    let v = ai_ok(
        &app,
        "recommendations",
        json!({"budget": 30000, "lifestyle": "big family with three kids"}),
    )
    .await;
    let mut first: Vec<&str> = v["recommendations"].as_array().unwrap()[..2]
        .iter()
        .map(|r| r["car"]["bodyType"].as_str().unwrap())
        .collect();
    first.sort();
    assert_eq!(first, ["Minivan", "SUV"], "{v}");

    let v = ai_ok(&app, "recommendations", json!({"budget": 10000})).await;
    assert_eq!(
        names(
            &v["recommendations"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["car"].clone())
                .collect()
        ),
        ["Volkswagen Golf"]
    );
    assert_invalid(
        ai(&app, "recommendations", json!({"lifestyle": "family"})).await,
        "budget",
    )
    .await;
    assert_invalid(
        ai(&app, "recommendations", json!({"budget": 0})).await,
        "budget",
    )
    .await;
    assert_invalid(
        ai(
            &app,
            "recommendations",
            json!({"budget": 5000, "preferences": {"transmission": "CVT"}}),
        )
        .await,
        "transmission",
    )
    .await;
}

#[actix_web::test]
async fn lifestyle_quiz_answers_pick_the_cars() {
    let app = ai_app().await;
    stock(&app).await;
    let v = ai_ok(
        &app,
        "lifestyle-recommendations",
        json!({"budget": 40000, "primaryUse": "work", "terrain": "offroad", "transmission": "any"}),
    )
    .await;
    assert_eq!(v["profile"]["lifestyles"], json!(["work", "adventure"]));
    assert_eq!(v["recommendations"][0]["car"]["model"], "F-150", "{v}");
    assert!(
        v["recommendations"][0]["reasons"]
            .as_array()
            .unwrap()
            .contains(&json!("Has Tow Hitch")),
        "{v}"
    );
    let v = ai_ok(&app, "lifestyle-recommendations", json!({"budget": 30000, "primaryUse": "commute", "passengers": 7, "ecoFriendly": true, "transmission": "Automatic"})).await;
    assert_eq!(
        v["profile"]["lifestyles"],
        json!(["commute", "family", "eco"])
    );
    let top: Vec<&str> = v["recommendations"].as_array().unwrap()[..2]
        .iter()
        .map(|r| r["car"]["model"].as_str().unwrap())
        .collect();
    assert_eq!(top, ["RAV4", "Pacifica"], "{v}");
    for (body, field) in [
        (json!({"primaryUse": "family"}), "budget"),
        (json!({"budget": 20000}), "primaryUse"),
        (
            json!({"budget": 20000, "primaryUse": "racing"}),
            "primaryUse",
        ),
        (
            json!({"budget": 20000, "primaryUse": "family", "passengers": 12}),
            "passengers",
        ),
        (
            json!({"budget": 20000, "primaryUse": "family", "terrain": "moon"}),
            "terrain",
        ),
    ] {
        assert_invalid(ai(&app, "lifestyle-recommendations", body).await, field).await;
    }
}

/// Listings around a 2019 Corolla at 15,500: answers the ids of the Corolla, a lone Yaris,
/// a lone Lada sedan and a lone SUV.
async fn pricing_stock(app: &TestApp) -> (String, String, String, String) {
    let (token, _) = user(app).await;
    let car = |make: &'static str,
               model: &'static str,
               year: i32,
               price: u32,
               body: &'static str,
               status: &'static str| {
        let token = token.clone();
        async move {
            create_car(
                app,
                &token,
                json!({"make": make, "model": model, "year": year, "price": price,
                "bodyType": body, "status": status}),
            )
            .await["_id"]
                .as_str()
                .unwrap()
                .to_owned()
        }
    };
    let corolla = car("Toyota", "Corolla", 2019, 15500, "Sedan", "active").await;
    car("Toyota", "Corolla", 2018, 14000, "Sedan", "active").await;
    car("Toyota", "Corolla", 2021, 17000, "Sedan", "active").await;
    car("Toyota", "Corolla", 2010, 5000, "Sedan", "active").await;
    car("Toyota", "Corolla", 2019, 9000, "Sedan", "sold").await;
    car("Toyota", "Corolla", 2020, 0, "Sedan", "active").await;
    let yaris = car("Toyota", "Yaris", 2019, 12000, "Hatchback", "active").await;
    let vesta = car("Lada", "Vesta", 2020, 11000, "Sedan", "active").await;
    let niva = car("UAZ", "Hunter", 2015, 6000, "SUV", "active").await;
    (corolla, yaris, vesta, niva)
}

fn numbers(v: &Value) -> Value {
    let mut prices: Vec<f64> = v["similarCars"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["price"].as_f64().unwrap())
        .collect();
    prices.sort_by(f64::total_cmp);
    json!([
        v["currentPrice"],
        v["marketAverage"],
        v["difference"],
        v["differencePercent"],
        v["comparableCount"],
        v["comparedBy"],
        prices
    ])
}

#[actix_web::test]
async fn pricing_insights_compare_with_real_listings_as_narrowly_as_possible() {
    let app = ai_app().await;
    let (corolla, yaris, vesta, niva) = pricing_stock(&app).await;
    // Same make and model within two years, priced and active: the 2018 and 2021 Corollas.
    let v = ai_ok(&app, "pricing-insights", json!({"carId": corolla})).await;
    assert_eq!(
        numbers(&v),
        json!([
            15500.0,
            15500.0,
            0.0,
            0.0,
            2,
            "makeModelYear",
            [14000.0, 17000.0]
        ])
    );
    assert_eq!(v["carId"], corolla);
    assert_eq!(v["priceAnalysis"], "The asking price of 15,500 is equal to the market average of 15,500 across 2 comparable listings (the same make and model within two model years).");
    assert_eq!(
        v["recommendation"],
        "The price is in line with the market; keep it."
    );
    for c in v["similarCars"].as_array().unwrap() {
        assert_eq!(
            (c["make"].as_str(), c["model"].as_str()),
            (Some("Toyota"), Some("Corolla"))
        );
        assert!(c["_id"].as_str().is_some() && c["year"].as_i64().is_some());
    }
    // No other Yaris: every other priced active Toyota.
    let v = ai_ok(&app, "pricing-insights", json!({"carId": yaris})).await;
    assert_eq!(
        numbers(&v),
        json!([
            12000.0,
            12875.0,
            -875.0,
            -6.8,
            4,
            "make",
            [5000.0, 14000.0, 15500.0, 17000.0]
        ])
    );
    // No other Lada: the other sedans.
    let v = ai_ok(&app, "pricing-insights", json!({"carId": vesta})).await;
    assert_eq!(v["comparedBy"], "bodyType");
    assert_eq!(v["comparableCount"], 4);
    let v = ai_ok(&app, "pricing-insights", json!({"carId": niva})).await;
    assert_eq!(
        numbers(&v),
        json!([6000.0, null, null, null, 0, "none", []])
    );
    assert!(
        v["priceAnalysis"]
            .as_str()
            .unwrap()
            .starts_with("No comparable priced listings"),
        "{v}"
    );

    assert_err(
        ai(
            &app,
            "pricing-insights",
            json!({"carId": uuid::Uuid::new_v4().to_string()}),
        )
        .await,
        404,
        "car_not_found",
    )
    .await;
    assert_err(
        ai(&app, "pricing-insights", json!({"carId": "nope"})).await,
        404,
        "car_not_found",
    )
    .await;
    assert_invalid(ai(&app, "pricing-insights", json!({})).await, "carId").await;
}

#[actix_web::test]
async fn the_ai_helpers_share_a_rate_limit_per_caller() {
    let app = app_with(|s| s.services.marketplace.rate_limits.ai.limit = 2).await;
    let body = json!({"query": "suv"});
    for _ in 0..2 {
        let res = ai(&app, "search-natural-language", body.clone()).await;
        assert_eq!(res.headers()["x-ratelimit-limit"], "2");
        assert_ok(res, 200).await;
    }
    let v = assert_err(
        ai(&app, "recommendations", json!({"budget": 1000})).await,
        429,
        "rate_limit_exceeded",
    )
    .await;
    assert!(v["retryAfter"].as_i64().is_some_and(|s| s > 0), "{v}");
    // The rest of the service keeps its own limit.
    assert_eq!(get(&app, "/cars", None).await.status(), 200);
}

#[actix_web::test]
async fn the_model_writes_the_words_when_it_answers_well() {
    let model = model_answering(&[
        ("Write a listing for this car", json!({"description": "MODEL: a lovely 2019 Toyota Corolla.", "highlights": ["Model highlight"]})),
        ("Improve the structure", json!({"description": "MODEL: One careful owner since 2019."})),
        ("Write a description of this car", json!({"description": "MODEL: the Toyota Corolla described."})),
        ("Read this car search", json!({"bodyType": "pickup", "maxPrice": 30000, "priorityFeatures": []})),
    ])
    .await;
    answer(
        &model,
        "analyse the asking price",
        chat(
            json!({"priceAnalysis": "MODEL analysis.", "recommendation": "MODEL recommendation."}),
        ),
    )
    .await;
    let app = model_app(&model).await;
    let admin = admin_token(&app).await;
    let (dealer_token, _) = dealer(&app, &admin).await;
    stock(&app).await;

    let v = ai_ok_as(&app, &dealer_token, "generate-listing", corolla()).await;
    assert_eq!(
        v,
        json!({"description": "MODEL: a lovely 2019 Toyota Corolla.", "highlights": ["Model highlight"]})
    );
    let v = ai_ok_as(
        &app,
        &dealer_token,
        "enhance-description",
        json!({"description": "one careful owner since 2019"}),
    )
    .await;
    assert_eq!(v["description"], "MODEL: One careful owner since 2019.");
    let v = ai_ok(
        &app,
        "generate-car-description",
        json!({"make": "Toyota", "model": "Corolla", "year": 2019}),
    )
    .await;
    assert_eq!(v["description"], "MODEL: the Toyota Corolla described.");
    // The model reads the query; the cars still come from the listings.
    let v = ai_ok(
        &app,
        "search-natural-language",
        json!({"query": "something to haul my boat"}),
    )
    .await;
    assert_eq!(
        v["interpretedQuery"],
        reading(json!({"bodyType": "Pickup", "maxPrice": 30000.0}))
    );
    assert_eq!(names(&v["results"]), ["Chevrolet Silverado", "Ford F-150"]);
}

#[actix_web::test]
async fn pricing_numbers_are_the_same_with_and_without_the_model() {
    let model = MockServer::start().await;
    answer(
        &model,
        "analyse the asking price",
        chat(
            json!({"priceAnalysis": "MODEL analysis.", "recommendation": "MODEL recommendation."}),
        ),
    )
    .await;
    let with_model = model_app(&model).await;
    let builtin = ai_app().await;
    let (a, _, _, _) = pricing_stock(&with_model).await;
    let (b, _, _, _) = pricing_stock(&builtin).await;
    let worded = ai_ok(&with_model, "pricing-insights", json!({"carId": a})).await;
    let plain = ai_ok(&builtin, "pricing-insights", json!({"carId": b})).await;
    assert_eq!(worded["priceAnalysis"], "MODEL analysis.");
    assert_eq!(worded["recommendation"], "MODEL recommendation.");
    assert_eq!(numbers(&worded), numbers(&plain));
}

/// Asks every helper of `app` and checks each answered the built-in writer's output.
async fn assert_builtin_answers(app: &TestApp) {
    let admin = admin_token(app).await;
    let (dealer_token, _) = dealer(app, &admin).await;
    stock(app).await;
    let v = ai_ok_as(app, &dealer_token, "generate-listing", corolla()).await;
    assert!(
        v["description"]
            .as_str()
            .unwrap()
            .starts_with("This 2019 Toyota Corolla is offered"),
        "{v}"
    );
    let v = ai_ok_as(
        app,
        &dealer_token,
        "enhance-description",
        json!({"description": "one owner since 2019"}),
    )
    .await;
    assert_eq!(v["description"], "One owner since 2019.");
    let v = ai_ok(
        app,
        "generate-car-description",
        json!({"make": "Toyota", "model": "Corolla", "year": 2019}),
    )
    .await;
    assert_eq!(v["description"], "For sale: 2019 Toyota Corolla.");
    let v = ai_ok(
        app,
        "search-natural-language",
        json!({"query": "truck under 30k"}),
    )
    .await;
    assert_eq!(
        v["interpretedQuery"],
        reading(json!({"bodyType": "Pickup", "maxPrice": 30000.0}))
    );
    assert_eq!(names(&v["results"]), ["Chevrolet Silverado", "Ford F-150"]);
    let id = v["results"][0]["_id"].as_str().unwrap();
    let v = ai_ok(app, "pricing-insights", json!({"carId": id})).await;
    assert!(
        v["priceAnalysis"]
            .as_str()
            .unwrap()
            .starts_with("The asking price of"),
        "{v}"
    );
}

#[actix_web::test]
async fn an_error_status_falls_back_to_the_builtin_writer() {
    let model = MockServer::start().await;
    answer(&model, "", ResponseTemplate::new(500)).await;
    assert_builtin_answers(&model_app(&model).await).await;
}

#[actix_web::test]
async fn a_slow_model_falls_back_to_the_builtin_writer() {
    let model = MockServer::start().await;
    let late = chat(json!({"description": "too late"})).set_delay(Duration::from_secs(3));
    answer(&model, "", late).await;
    assert_builtin_answers(&model_app(&model).await).await;
}

#[actix_web::test]
async fn malformed_or_unusable_answers_fall_back_to_the_builtin_writer() {
    let model = model_answering(&[
        // Not JSON at all.
        (
            "Write a listing for this car",
            json!("Sure! Here is a great listing."),
        ),
        // A number of the description lost.
        (
            "Improve the structure",
            json!({"description": "One owner."}),
        ),
        // Not about the car.
        (
            "Write a description of this car",
            json!({"description": "A fine vehicle."}),
        ),
        // A body type that is not one of the listings'.
        (
            "Read this car search",
            json!({"bodyType": "Spaceship", "maxPrice": 30000}),
        ),
        // The wrong shape.
        ("analyse the asking price", json!({"priceAnalysis": 42})),
    ])
    .await;
    assert_builtin_answers(&model_app(&model).await).await;
}
