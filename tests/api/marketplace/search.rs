//! The advanced search (full text, typo tolerant, with filters) and the facets.

use super::*;
use reqwest::Method;

async fn search(app: &TestApp, body: Value) -> Value {
    let res = post(app, "/cars/advanced-search", body).await;
    assert_eq!(res.status().as_u16(), 200);
    json_body(res).await
}

fn models(v: &Value) -> Vec<String> {
    v["data"]
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
        .collect()
}

async fn stock(app: &TestApp) {
    let (token, _) = user(app).await;
    for (make, model, price, year, body, features, description) in [
        (
            "Toyota",
            "Corolla",
            15000,
            2019,
            "Sedan",
            vec!["Bluetooth"],
            "Reliable commuter.",
        ),
        (
            "Toyota",
            "RAV4",
            28000,
            2021,
            "SUV",
            vec!["Sunroof", "Bluetooth"],
            "Family SUV, roomy.",
        ),
        (
            "Honda",
            "Civic",
            17000,
            2020,
            "Sedan",
            vec!["Backup Camera"],
            "Sporty and economical, like a Corolla.",
        ),
        (
            "Tesla",
            "Model 3",
            36000,
            2022,
            "Sedan",
            vec!["Autopilot"],
            "Long range battery.",
        ),
        (
            "Volkswagen",
            "Golf",
            12000,
            2017,
            "Hatchback",
            vec!["Heated Seats"],
            "City car.",
        ),
    ] {
        create_car(
            app,
            &token,
            json!({"make": make, "model": model, "price": price, "year": year,
                   "bodyType": body, "features": features, "description": description}),
        )
        .await;
    }
}

#[actix_web::test]
async fn free_text_finds_listings_by_relevance_and_forgives_typos() {
    let app = app().await;
    stock(&app).await;

    let v = search(&app, json!({"query": "Toyota Corolla"})).await;
    assert_eq!(models(&v)[0], "Toyota Corolla", "{v}");
    assert_eq!(v["search"]["matchedAny"], false);

    let v = search(&app, json!({"query": "Toyta Corola"})).await;
    assert_eq!(models(&v), ["Toyota Corolla"], "{v}");
    assert_eq!(v["search"]["terms"][0], json!(["toyta", "toyota"]));

    // Description and feature words are searched too; relevance first.
    let v = search(&app, json!({"query": "corolla"})).await;
    assert_eq!(models(&v), ["Toyota Corolla", "Honda Civic"], "{v}");
    let v = search(&app, json!({"query": "sunrof"})).await;
    assert_eq!(models(&v), ["Toyota RAV4"], "{v}");
    let v = search(&app, json!({"query": "family suv"})).await;
    assert_eq!(models(&v), ["Toyota RAV4"], "{v}");

    // No listing holds every word: listings with any of them.
    let v = search(&app, json!({"query": "tesla golf"})).await;
    assert_eq!(v["search"]["matchedAny"], true);
    assert_eq!(v["data"].as_array().unwrap().len(), 2);

    // Filters and sortBy apply to the matches.
    let v = search(
        &app,
        json!({"query": "toyota", "filters": {"minPrice": 20000, "bodyType": "SUV"}}),
    )
    .await;
    assert_eq!(models(&v), ["Toyota RAV4"]);
    let v = search(&app, json!({"query": "toyota", "sortBy": "price:desc"})).await;
    assert_eq!(models(&v), ["Toyota RAV4", "Toyota Corolla"]);
    let v = search(
        &app,
        json!({"filters": {"maxPrice": "15000"}, "sortBy": "price:asc", "limit": 1}),
    )
    .await;
    assert_eq!(models(&v), ["Volkswagen Golf"]);
    assert_eq!(v["pagination"]["totalItems"], 2);
    assert!(v.get("search").is_none());

    let v = search(&app, json!({"query": "xylophone"})).await;
    assert_eq!(v["data"], json!([]));
    // Words that are all noise search nothing and list everything.
    let v = search(&app, json!({"query": "the and"})).await;
    assert_eq!(v["pagination"]["totalItems"], 5);
}

#[actix_web::test]
async fn search_input_is_checked() {
    let app = app().await;
    for (body, field) in [
        (json!({"sortBy": "colour:asc"}), "sortBy"),
        (json!({"filters": {"minYear": "new"}}), "minYear"),
        (json!({"query": "x".repeat(501)}), "query"),
    ] {
        let res = post(&app, "/cars/advanced-search", body).await;
        let v = assert_err(res, 400, "validation_error").await;
        assert_eq!(v["details"]["field"], field, "{v}");
    }
    let res = post(&app, "/cars/advanced-search", json!({"limit": 500})).await;
    assert_err(res, 400, "validation_error").await;
    let res = req(&app, Method::POST, "/cars/advanced-search")
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_err(res, 400, "validation_error").await;
    // FTS syntax in the query is text, not syntax.
    let res = post(
        &app,
        "/cars/advanced-search",
        json!({"query": "\"toyota\" OR NEAR(a b) *"}),
    )
    .await;
    assert_eq!(res.status().as_u16(), 200);
}

#[actix_web::test]
async fn facets_count_the_filtered_listings() {
    let app = app().await;
    stock(&app).await;
    let v = assert_ok(get(&app, "/cars/facets", None).await, 200).await;
    assert_eq!(v["total"], 5);
    assert_eq!(v["make"][0], json!({"value": "Toyota", "count": 2}));
    assert_eq!(v["bodyType"][0], json!({"value": "Sedan", "count": 3}));
    let bands: Vec<(String, i64)> = v["priceBand"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["value"].as_str().unwrap().to_owned(),
                b["count"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(bands[2], ("10000-20000".to_owned(), 3));
    assert_eq!(bands[4], ("30000-50000".to_owned(), 1));
    assert_eq!(bands.iter().map(|b| b.1).sum::<i64>(), 5);

    let v = assert_ok(get(&app, "/cars/facets?make=toyota", None).await, 200).await;
    assert_eq!(v["total"], 2);
    assert_eq!(v["bodyType"].as_array().unwrap().len(), 2);
    let res = get(&app, "/cars/facets?maxMileage=lots", None).await;
    assert_err(res, 400, "validation_error").await;
}
