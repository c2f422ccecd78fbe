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
    // FTS syntax in the query is text, not syntax: the operators find nothing of their own
    // and exclude nothing (as syntax, NOT would drop the Corolla).
    stock(&app).await;
    let v = search(&app, json!({"query": "\"toyota\" OR NEAR(a b) *"})).await;
    let found = models(&v);
    for car in ["Toyota Corolla", "Toyota RAV4"] {
        assert!(found.iter().any(|m| m == car), "{car} missing: {v}");
    }
    let v = search(&app, json!({"query": "toyota NOT corolla"})).await;
    assert!(
        models(&v).iter().any(|m| m == "Toyota Corolla"),
        "NOT read as syntax: {v}"
    );
}

/// A search's page and its total come from one evaluation of the match: every page, the one
/// past the last match and the fallback to any word count all the matches.
#[actix_web::test]
async fn every_search_page_counts_all_the_matches() {
    let app = app().await;
    stock(&app).await;
    let page = |query: &str, page: u64| json!({"query": query, "limit": 1, "page": page});
    // "toyota" names two listings; "corolla" one listing's model and another's description.
    for (query, matches) in [("toyota", 2), ("corola", 2), ("toyta sunrof", 1)] {
        let mut seen = vec![];
        for n in 1..=matches + 1 {
            let v = search(&app, page(query, n)).await;
            assert_eq!(
                v["pagination"]["totalItems"], matches,
                "{query} page {n}: {v}"
            );
            assert_eq!(v["pagination"]["currentPage"], n, "{v}");
            seen.extend(models(&v));
        }
        assert_eq!(seen.len(), matches as usize, "{query}: {seen:?}");
    }
    // No listing holds both words: listings with either, counted alike on every page.
    let v = search(&app, page("golf autopilot", 2)).await;
    assert_eq!(v["search"]["matchedAny"], true, "{v}");
    assert_eq!(v["pagination"]["totalItems"], 2, "{v}");
    assert_eq!(models(&v).len(), 1, "{v}");
    let v = search(&app, page("golf autopilot", 3)).await;
    assert_eq!(v["pagination"]["totalItems"], 2, "{v}");
    assert!(models(&v).is_empty(), "{v}");
    // Nothing at all: an empty first page.
    let v = search(&app, page("zzzqqq", 1)).await;
    assert_eq!(v["pagination"]["totalItems"], 0, "{v}");
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

/// Facets with a range filter (grouped from the matching listings, on PostgreSQL by
/// combination first) count each value as the list filtered by it does, and their price bands
/// sum to the list's total.
#[actix_web::test]
async fn range_facets_agree_with_the_lists() {
    let app = app().await;
    stock(&app).await;
    let (token, _) = user(&app).await;
    create_car(
        &app,
        &token,
        json!({"make": "TOYOTA", "price": 30000, "fuelType": "Diesel"}),
    )
    .await;
    create_car(
        &app,
        &token,
        json!({"make": "Kia", "price": 9000, "year": 2021}),
    )
    .await;
    for q in [
        "maxPrice=30000",
        "make=toyota&maxPrice=30000",
        "minYear=2020",
        "minPrice=10000&maxPrice=20000&minYear=2015",
        "maxMileage=50000&bodyType=Sedan",
        // Price ranges cut at the band edges: whole bands from the kept counts, the ends from
        // the listings.
        "maxPrice=20000",
        "minPrice=10000&maxPrice=30000",
        "minPrice=12000&maxPrice=50000&make=toyota",
        "minPrice=0",
    ] {
        let v = assert_ok(get(&app, &format!("/cars/facets?{q}"), None).await, 200).await;
        let listed = total(&app, q).await;
        assert_eq!(v["total"].as_i64(), Some(listed), "{q}: {v}");
        let bands: i64 = v["priceBand"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["count"].as_i64().unwrap())
            .sum();
        assert_eq!(bands, listed, "{q}: {v}");
        for facet in ["make", "bodyType", "fuelType", "transmission", "condition"] {
            let values = v[facet].as_array().unwrap();
            assert!(!values.is_empty() || listed == 0, "{q} {facet}: {v}");
            let mut sum = 0;
            for value in values {
                let (name, count) = (
                    value["value"].as_str().unwrap(),
                    value["count"].as_i64().unwrap(),
                );
                // A facet the query filters by holds its one value.
                if !q.contains(&format!("{facet}=")) {
                    let filtered = format!("{q}&{facet}={}", name.replace(' ', "%20"));
                    assert_eq!(total(&app, &filtered).await, count, "{filtered}: {v}");
                }
                sum += count;
            }
            assert_eq!(sum, listed, "{q} {facet}: {v}");
        }
    }
    // Both spellings of a make are one value.
    let v = assert_ok(get(&app, "/cars/facets?maxPrice=30000", None).await, 200).await;
    assert_eq!(v["make"][0]["count"], 3, "{v}");
    assert_eq!(
        v["make"][0]["value"]
            .as_str()
            .map(str::to_lowercase)
            .as_deref(),
        Some("toyota")
    );
}

/// `totalItems` of `GET /cars` with `query`.
async fn total(app: &TestApp, query: &str) -> i64 {
    let res = get(app, &format!("/cars?{query}"), None).await;
    assert_eq!(res.status().as_u16(), 200, "{query}");
    json_body(res).await["pagination"]["totalItems"]
        .as_i64()
        .unwrap()
}

/// Lists and facets counted from the kept counts agree with the same counted over the
/// listings: `maxMileage` (every listing has less) makes a list count its listings.
async fn kept_counts_agree(app: &TestApp) {
    for q in [
        "",
        "make=toyota",
        "make=TOYOTA&model=corolla",
        "fuelType=Diesel",
        "bodyType=Sedan&transmission=Automatic",
        "status=sold",
        "status=sold&make=toyota",
        "sellerType=private&condition=Used",
    ] {
        let kept = total(app, q).await;
        let counted = total(app, &format!("{q}&maxMileage=999999999")).await;
        assert_eq!(kept, counted, "{q}");
        let mut kept = assert_ok(get(app, &format!("/cars/facets?{q}"), None).await, 200).await;
        let path = format!("/cars/facets?{q}&maxMileage=999999999");
        let mut counted = assert_ok(get(app, &path, None).await, 200).await;
        assert_eq!(kept["total"].as_i64(), Some(total(app, q).await), "{q}");
        for v in [&mut kept, &mut counted] {
            v.as_object_mut().unwrap().remove("total");
        }
        assert_eq!(kept, counted, "{q}");
    }
}

/// Lists and facets without a range filter are counted from the per-combination counts the
/// triggers keep; they agree with the listings after every kind of write: create, change of
/// a counted field, of the status and of the price band, delete, and an account's deletion
/// cascading to its listings.
#[actix_web::test]
async fn the_kept_counts_follow_every_write() {
    let app = app().await;
    stock(&app).await;
    let (owner, _) = user(&app).await;
    let a = create_car(&app, &owner, json!({"make": "Toyota", "price": 4000})).await;
    let b = create_car(&app, &owner, json!({"make": "Kia", "fuelType": "Diesel"})).await;
    let path = |c: &Value| format!("/cars/{}", c["_id"].as_str().unwrap());
    assert_eq!(total(&app, "make=toyota").await, 3);
    kept_counts_agree(&app).await;
    for change in [
        json!({"status": "sold"}),
        json!({"make": "Honda", "model": "Civic"}),
        json!({"price": 60000, "bodyType": "SUV"}),
        json!({"status": "active", "transmission": "Manual"}),
    ] {
        let res = send(&app, Method::PUT, &path(&a), &owner, Some(change)).await;
        assert_ok(res, 200).await;
        kept_counts_agree(&app).await;
    }
    let res = send(&app, Method::DELETE, &path(&b), &owner, None).await;
    assert_ok(res, 200).await;
    kept_counts_agree(&app).await;
    assert_eq!(total(&app, "make=honda").await, 2);
    sql(
        &app,
        "DELETE FROM marketplace_users WHERE id = \
         (SELECT seller_id FROM marketplace_cars WHERE price = 60000)",
    )
    .await;
    assert_eq!(total(&app, "make=honda").await, 1, "the cascade took it");
    kept_counts_agree(&app).await;
}

/// The full-text index follows every write of a listing (on SQLite joined by each listing's
/// search key): a change of its text is found by the new words only, a deleted listing is no
/// longer found, and listings added after a deletion (which may take its key again) are.
#[actix_web::test]
async fn the_search_follows_every_write() {
    let app = app().await;
    stock(&app).await;
    let (owner, _) = user(&app).await;
    let path = |c: &Value| format!("/cars/{}", c["_id"].as_str().unwrap());
    let hits = |v: Value| v["pagination"]["totalItems"].as_i64().unwrap();
    let a = create_car(
        &app,
        &owner,
        json!({"make": "Mazda", "model": "MX-5", "description": "Tartan seats, soft top."}),
    )
    .await;
    assert_eq!(hits(search(&app, json!({"query": "tartan"})).await), 1);
    let change = json!({"model": "CX-5", "description": "Compact crossover, towbar."});
    let res = send(&app, Method::PUT, &path(&a), &owner, Some(change)).await;
    assert_ok(res, 200).await;
    assert_eq!(hits(search(&app, json!({"query": "tartan"})).await), 0);
    assert_eq!(hits(search(&app, json!({"query": "towbar"})).await), 1);
    let res = send(&app, Method::DELETE, &path(&a), &owner, None).await;
    assert_ok(res, 200).await;
    assert_eq!(hits(search(&app, json!({"query": "towbar"})).await), 0);
    for description in ["Towbar fitted.", "Towbar and roof rails."] {
        create_car(&app, &owner, json!({"description": description})).await;
    }
    let v = search(&app, json!({"query": "towbar", "sortBy": "price:asc"})).await;
    assert_eq!(hits(v), 2);
    // The others are still found as before.
    let v = search(&app, json!({"query": "Toyta Corola"})).await;
    assert_eq!(models(&v)[0], "Toyota Corolla", "{v}");
}

/// Listings that differ in the attributes free text names: fuel, gearbox, colour, year,
/// price; and models written with punctuation.
async fn attribute_stock(app: &TestApp) {
    let (token, _) = user(app).await;
    let rows = "Tesla|Model 3|2022|36000|Electric|Automatic|Pearl White
        Ford|F-150|2019|30000|Petrol|Automatic|Red
        Ford|Focus|2018|9000|Petrol|Manual|Blue
        Ford|Fiesta|2016|6000|Diesel|Manual|Dark red
        Toyota|Corolla|2019|14999|Petrol|Automatic|Silver
        Toyota|Corolla|2015|8500|Petrol|Manual|White
        Toyota|Yaris|2019|9500|Hybrid|Manual|Red
        Honda|CR-V|2020|25000|Hybrid|Automatic|Gray
        BMW|3 Series|2017|18000|Diesel|Manual|Black";
    for row in rows.lines() {
        let f: Vec<&str> = row.trim().split('|').collect();
        let n = |i: usize| f[i].parse::<i64>().unwrap();
        create_car(
            app,
            &token,
            json!({"make": f[0], "model": f[1], "year": n(2), "price": n(3),
                   "fuelType": f[4], "transmission": f[5], "color": f[6],
                   "features": [], "description": "Well kept."}),
        )
        .await;
    }
}

/// The cars the advanced search answers for `query`, as "year make model".
async fn found(app: &TestApp, query: &str) -> (Vec<String>, Value) {
    let v = search(app, json!({"query": query, "limit": 50})).await;
    let mut cars: Vec<String> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{} {} {}",
                c["year"],
                c["make"].as_str().unwrap(),
                c["model"].as_str().unwrap()
            )
        })
        .collect();
    cars.sort();
    assert_eq!(v["pagination"]["totalItems"], cars.len(), "{v}");
    (cars, v)
}

/// The searches: attribute words, years and price phrases are read as filters (the
/// natural-language reader's), the other words searched as text; models match with and
/// without their punctuation; a short word is forgiven one typo.
#[actix_web::test]
async fn free_text_reads_attributes_years_prices_and_model_names() {
    let app = app().await;
    attribute_stock(&app).await;

    let (cars, v) = found(&app, "electric").await;
    assert_eq!(cars, ["2022 Tesla Model 3"]);
    assert_eq!(v["search"]["filters"]["fuelType"], "Electric", "{v}");
    let (cars, _) = found(&app, "automatic").await;
    assert_eq!(
        cars,
        [
            "2019 Ford F-150",
            "2019 Toyota Corolla",
            "2020 Honda CR-V",
            "2022 Tesla Model 3"
        ]
    );
    let (cars, _) = found(&app, "white").await;
    assert_eq!(cars, ["2015 Toyota Corolla", "2022 Tesla Model 3"]);
    let (cars, v) = found(&app, "red").await;
    assert_eq!(
        cars,
        ["2016 Ford Fiesta", "2019 Ford F-150", "2019 Toyota Yaris"]
    );
    assert_eq!(v["search"]["filters"]["color"], "Red");
    let (cars, _) = found(&app, "grey").await;
    assert_eq!(cars, ["2020 Honda CR-V"]);

    // Red Fords only (not the blue one); the make stays text.
    let (cars, v) = found(&app, "red ford").await;
    assert_eq!(cars, ["2016 Ford Fiesta", "2019 Ford F-150"]);
    assert_eq!(v["search"]["terms"], json!([["ford"]]), "{v}");
    let (cars, _) = found(&app, "2019 toyota").await;
    assert_eq!(cars, ["2019 Toyota Corolla", "2019 Toyota Yaris"]);
    let (cars, v) = found(&app, "toyota under 10000").await;
    assert_eq!(cars, ["2015 Toyota Corolla", "2019 Toyota Yaris"]);
    assert_eq!(v["search"]["filters"]["maxPrice"], 10000.0);
    let (cars, _) = found(&app, "automatic ford 2019 or newer").await;
    assert_eq!(cars, ["2019 Ford F-150"]);

    // Model names with and without punctuation.
    for q in ["crv", "CR-V", "honda crv", "cr v"] {
        assert_eq!(found(&app, q).await.0, ["2020 Honda CR-V"], "{q}");
    }
    for q in ["f150", "F-150", "ford f150"] {
        assert_eq!(found(&app, q).await.0, ["2019 Ford F-150"], "{q}");
    }
    let (cars, v) = found(&app, "crv").await;
    assert_eq!(cars, ["2020 Honda CR-V"]);
    assert_eq!(v["search"]["terms"], json!([["crv", "cr-v"]]));

    // One typo in a short word.
    let (cars, v) = found(&app, "bmv").await;
    assert_eq!(cars, ["2017 BMW 3 Series"]);
    assert_eq!(v["search"]["terms"], json!([["bmv", "bmw"]]));
    assert_eq!(found(&app, "bwm diesel").await.0, ["2017 BMW 3 Series"]);

    // The request's own filters win over the words' reading; a reading that contradicts
    // them is searched as text instead (and answers, never fails).
    let v = search(
        &app,
        json!({"query": "toyota under 10000", "filters": {"maxPrice": 9000}}),
    )
    .await;
    assert_eq!(models(&v), ["Toyota Corolla"], "{v}");
    let v = search(
        &app,
        json!({"query": "toyota under 10000", "filters": {"minPrice": 12000}}),
    )
    .await;
    assert_eq!(v["success"], true);
    assert!(v["search"].get("filters").is_none(), "{v}");
}

/// On PostgreSQL (migration `m20261213_000001`), a count by fuel and body reads the kept counts
/// through the index led by them, not every kept row of the status, and the reader's filters
/// (fuel, body, gearbox, price, year) read the listings' index led by them. Plans of an empty
/// database with sequential scans off: which index the planner can use, not what it would
/// choose at 100,000 listings (docs/benchmarks.md has those plans).
#[actix_web::test]
async fn on_postgres_fuel_and_body_filters_read_indexes_led_by_them() {
    use sea_orm::{ConnectionTrait, TransactionTrait};
    let app = app().await;
    if !app.settings.database.url.starts_with("postgres") {
        return;
    }
    let db = sea_orm::Database::connect(&app.settings.database.url)
        .await
        .unwrap();
    let txn = db.begin().await.unwrap();
    txn.execute_unprepared("SET LOCAL enable_seqscan = off")
        .await
        .unwrap();
    for (statement, index) in [
        (
            "SELECT SUM(listings) FROM marketplace_car_counts WHERE status = 'active' \
             AND fuel_type = 'Diesel' AND body_type = 'SUV'",
            "idx_marketplace_car_counts_fuel_body",
        ),
        (
            "SELECT COUNT(*) FROM marketplace_cars WHERE status = 'active' \
             AND fuel_type = 'Petrol' AND transmission = 'Automatic' \
             AND body_type = 'Hatchback' AND price <= 15000 AND year >= 2018",
            "idx_marketplace_cars_fuel_body",
        ),
    ] {
        let rows = txn
            .query_all_raw(sea_orm::Statement::from_string(
                sea_orm::DbBackend::Postgres,
                format!("EXPLAIN {statement}"),
            ))
            .await
            .unwrap();
        let plan: Vec<String> = rows
            .iter()
            .map(|r| r.try_get_by_index::<String>(0).unwrap())
            .collect();
        assert!(
            plan.iter().any(|line| line.contains(index)),
            "{statement}: {plan:#?}"
        );
    }
    txn.rollback().await.unwrap();
    db.close().await.ok();
}
