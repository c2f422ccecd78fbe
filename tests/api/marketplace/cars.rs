//! Car listings: create with the spec's rules, read, change and remove by owner or
//! administrator only, the seller's list, and the filters and sorts of `GET /cars`.

use super::*;
use reqwest::Method;

#[actix_web::test]
async fn a_listing_is_created_with_defaults_and_read_back() {
    let app = app().await;
    let (token, id) = user(&app).await;
    let body = car_body(json!({}));
    let mut minimal = body.clone();
    let obj = minimal.as_object_mut().unwrap();
    obj.remove("price");
    obj.remove("features");
    let res = send(&app, Method::POST, "/cars", &token, Some(minimal)).await;
    let car = assert_ok(res, 201).await;
    assert_eq!(car["price"], 0.0);
    assert_eq!(car["status"], "active");
    assert_eq!(car["sellerType"], "private");
    assert_eq!(car["sellerId"], id.as_str());
    assert_eq!(car["images"], json!([]));
    assert!(car["createdAt"].is_string() && car["updatedAt"].is_string());

    let car_id = car["_id"].as_str().unwrap();
    let got = assert_ok(get(&app, &format!("/cars/{car_id}"), None).await, 200).await;
    assert_eq!(got["make"], "Toyota");
    assert_eq!(got["mileage"], 42000);

    // Enum spellings are accepted in any case and stored as the spec spells them.
    let car = create_car(
        &app,
        &token,
        json!({"fuelType": "electric", "bodyType": "suv", "condition": "certified pre-owned",
               "status": "reserved", "images": ["https://img.example.com/1.jpg"]}),
    )
    .await;
    assert_eq!(car["fuelType"], "Electric");
    assert_eq!(car["bodyType"], "SUV");
    assert_eq!(car["condition"], "Certified Pre-Owned");
    assert_eq!(car["status"], "reserved");

    for missing in [
        "/cars/00000000-0000-0000-0000-000000000000",
        "/cars/not-an-id",
    ] {
        assert_err(get(&app, missing, None).await, 404, "car_not_found").await;
    }
}

#[actix_web::test]
async fn listings_follow_every_rule_of_the_spec() {
    let app = app().await;
    let (token, _) = user(&app).await;
    let res = post(&app, "/cars", car_body(json!({}))).await;
    assert_err(res, 401, "invalid_token").await;

    let long = |n: usize, url: bool| -> Value {
        (0..n)
            .map(|i| {
                if url {
                    json!(format!("https://img.example.com/{i}.jpg"))
                } else {
                    json!(format!("Feature {i}"))
                }
            })
            .collect()
    };
    let cases: Vec<(Value, &str)> = vec![
        (json!({"make": null}), "make"),
        (json!({"model": "  "}), "model"),
        (json!({"year": 1899}), "year"),
        (json!({"year": 2027}), "year"),
        (json!({"year": 2019.5}), "year"),
        (json!({"year": "soon"}), "year"),
        (json!({"mileage": -1}), "mileage"),
        (json!({"fuelType": "Steam"}), "fuelType"),
        (json!({"transmission": "CVT-ish"}), "transmission"),
        (json!({"bodyType": "Spaceship"}), "bodyType"),
        (json!({"condition": "Wrecked"}), "condition"),
        (json!({"status": "gone"}), "status"),
        (json!({"price": -5}), "price"),
        (json!({"images": long(21, true)}), "images"),
        (json!({"images": ["javascript:alert(1)"]}), "images"),
        (json!({"videos": long(11, true)}), "videos"),
        (json!({"features": long(51, false)}), "features"),
        (json!({"description": ""}), "description"),
    ];
    for (over, field) in cases {
        let res = send(
            &app,
            Method::POST,
            "/cars",
            &token,
            Some(car_body(over.clone())),
        )
        .await;
        let v = assert_err(res, 400, "validation_error").await;
        assert_eq!(v["details"]["field"], field, "{over}: {v}");
    }
    // The limits themselves are allowed.
    let car = create_car(
        &app,
        &token,
        json!({"year": 1900, "images": long(20, true), "videos": long(10, true),
               "features": long(50, false)}),
    )
    .await;
    assert_eq!(car["images"].as_array().unwrap().len(), 20);
    assert_eq!(car["features"].as_array().unwrap().len(), 50);
    create_car(&app, &token, json!({"year": 2026})).await;
}

#[actix_web::test]
async fn only_the_owner_or_an_administrator_changes_a_listing() {
    let app = app().await;
    let admin = admin_token(&app).await;
    let (owner, _) = user(&app).await;
    let (other, _) = user(&app).await;
    let car = create_car(&app, &owner, json!({})).await;
    let path = format!("/cars/{}", car["_id"].as_str().unwrap());

    let res = send(&app, Method::PUT, &path, &other, Some(json!({"price": 1}))).await;
    assert_err(res, 403, "not_owner").await;
    let res = send(&app, Method::DELETE, &path, &other, None).await;
    assert_err(res, 403, "not_owner").await;
    let res = req(&app, Method::PUT, &path)
        .json(&json!({"price": 1}))
        .send()
        .await
        .unwrap();
    assert_err(res, 401, "invalid_token").await;

    let res = send(
        &app,
        Method::PUT,
        &path,
        &owner,
        Some(json!({"price": 14999.5, "status": "sold"})),
    )
    .await;
    let updated = assert_ok(res, 200).await;
    assert_eq!(updated["price"], 14999.5);
    assert_eq!(updated["status"], "sold");
    assert_eq!(updated["make"], "Toyota", "untouched fields stay");

    let res = send(&app, Method::PUT, &path, &owner, Some(json!({}))).await;
    assert_err(res, 400, "validation_error").await;
    let res = send(
        &app,
        Method::PUT,
        &path,
        &owner,
        Some(json!({"year": 1800})),
    )
    .await;
    let v = assert_err(res, 400, "validation_error").await;
    assert_eq!(v["details"]["field"], "year");

    let res = send(
        &app,
        Method::PUT,
        &path,
        &admin,
        Some(json!({"status": "active"})),
    )
    .await;
    assert_eq!(assert_ok(res, 200).await["status"], "active");
    let res = send(
        &app,
        Method::PUT,
        "/cars/00000000-0000-0000-0000-000000000000",
        &admin,
        Some(json!({"price": 1})),
    )
    .await;
    assert_err(res, 404, "car_not_found").await;

    let res = send(&app, Method::DELETE, &path, &admin, None).await;
    assert_ok(res, 200).await;
    assert_err(get(&app, &path, None).await, 404, "car_not_found").await;
    let res = send(&app, Method::DELETE, &path, &owner, None).await;
    assert_err(res, 404, "car_not_found").await;
}

#[actix_web::test]
async fn my_cars_lists_the_callers_listings_by_status() {
    let app = app().await;
    let (token, _) = user(&app).await;
    let (other, _) = user(&app).await;
    create_car(&app, &token, json!({"status": "sold"})).await;
    create_car(&app, &token, json!({})).await;
    create_car(&app, &token, json!({})).await;
    create_car(&app, &other, json!({})).await;

    let res = send(&app, Method::GET, "/cars/my-cars", &token, None).await;
    let v = json_body(res).await;
    assert_eq!(v["data"].as_array().unwrap().len(), 3);
    assert_eq!(v["pagination"]["totalItems"], 3);
    let res = send(
        &app,
        Method::GET,
        "/cars/my-cars?status=sold&limit=1",
        &token,
        None,
    )
    .await;
    let v = json_body(res).await;
    assert_eq!(v["data"][0]["status"], "sold");
    assert_eq!(v["pagination"]["totalItems"], 1);
    let res = send(&app, Method::GET, "/cars/my-cars?status=lost", &token, None).await;
    assert_err(res, 400, "validation_error").await;
    assert_err(get(&app, "/cars/my-cars", None).await, 401, "invalid_token").await;
}

#[actix_web::test]
async fn a_dealers_listings_are_dealer_listings() {
    let app = app().await;
    let admin = admin_token(&app).await;
    let (dealer, _) = dealer(&app, &admin).await;
    let car = create_car(&app, &dealer, json!({})).await;
    assert_eq!(car["sellerType"], "dealer");
    let v = json_body(get(&app, "/cars?sellerType=dealer", None).await).await;
    assert_eq!(v["data"].as_array().unwrap().len(), 1);
    let v = json_body(get(&app, "/cars?sellerType=private", None).await).await;
    assert_eq!(v["data"].as_array().unwrap().len(), 0);
}

async fn ids(app: &TestApp, query: &str) -> Vec<String> {
    let res = get(app, &format!("/cars?{query}"), None).await;
    let v = json_body(res).await;
    assert_eq!(v["success"], true, "{query}: {v}");
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["model"].as_str().unwrap().to_owned())
        .collect()
}

#[actix_web::test]
async fn browsing_filters_sorts_and_pages() {
    let app = app().await;
    let (token, _) = user(&app).await;
    for (model, make, year, price, mileage, fuel, gearbox, body) in [
        (
            "A", "Toyota", 2015, 9000, 120000, "Petrol", "Manual", "Sedan",
        ),
        (
            "B",
            "Toyota",
            2020,
            21000,
            30000,
            "Hybrid",
            "Automatic",
            "SUV",
        ),
        (
            "C",
            "Honda",
            2018,
            14000,
            60000,
            "Petrol",
            "Automatic",
            "Hatchback",
        ),
        (
            "D",
            "Tesla",
            2022,
            38000,
            15000,
            "Electric",
            "Automatic",
            "Sedan",
        ),
        (
            "E", "Ford", 2010, 4000, 190000, "Diesel", "Manual", "Pickup",
        ),
    ] {
        create_car(
            &app,
            &token,
            json!({"model": model, "make": make, "year": year, "price": price,
                   "mileage": mileage, "fuelType": fuel, "transmission": gearbox,
                   "bodyType": body}),
        )
        .await;
    }
    create_car(&app, &token, json!({"model": "S", "status": "sold"})).await;

    // Newest first by default, active only.
    assert_eq!(ids(&app, "").await, ["E", "D", "C", "B", "A"]);
    assert_eq!(ids(&app, "status=sold").await, ["S"]);
    assert_eq!(ids(&app, "make=toyota").await, ["B", "A"]);
    assert_eq!(ids(&app, "make=Toyota&model=b").await, ["B"]);
    assert_eq!(
        ids(&app, "minPrice=9000&maxPrice=21000&sort=price:asc").await,
        ["A", "C", "B"]
    );
    assert_eq!(
        ids(&app, "minYear=2018&maxYear=2020&sort=year:desc").await,
        ["B", "C"]
    );
    assert_eq!(
        ids(&app, "fuelType=Petrol&sort=price:desc").await,
        ["C", "A"]
    );
    assert_eq!(
        ids(&app, "transmission=Manual&sort=mileage").await,
        ["A", "E"]
    );
    assert_eq!(
        ids(&app, "bodyType=Sedan&sort=createdAt:asc").await,
        ["A", "D"]
    );
    assert_eq!(
        ids(&app, "maxMileage=30000&sort=mileage:asc").await,
        ["D", "B"]
    );
    assert_eq!(
        ids(&app, "transmission=Automatic&sort=year:asc,price:desc").await,
        ["C", "B", "D"]
    );

    let v = json_body(get(&app, "/cars?limit=2&page=2&sort=price:asc", None).await).await;
    assert_eq!(
        v["pagination"],
        json!({"currentPage": 2, "totalPages": 3, "totalItems": 5,
        "itemsPerPage": 2, "hasNextPage": true, "hasPrevPage": true})
    );
    assert_eq!(v["data"][0]["model"], "C");

    for (query, field) in [
        ("sort=color:asc", "sort"),
        ("sort=price:up", "sort"),
        ("minPrice=cheap", "minPrice"),
        ("minYear=1999.5", "minYear"),
        ("fuelType=Coal", "fuelType"),
        ("status=gone", "status"),
        ("minPrice=500&maxPrice=100", "minPrice"),
    ] {
        let res = get(&app, &format!("/cars?{query}"), None).await;
        let v = assert_err(res, 400, "validation_error").await;
        assert_eq!(v["details"]["field"], field, "{query}: {v}");
    }
    for query in ["limit=101", "limit=0", "page=0"] {
        let res = get(&app, &format!("/cars?{query}"), None).await;
        assert_err(res, 400, "validation_error").await;
    }
}

/// `totalItems` of `GET /cars?{query}` (kept counts plus edges for ranges), checked against
/// the listings the list itself answers.
async fn range_total(app: &TestApp, query: &str) -> u64 {
    let v = json_body(get(app, &format!("/cars?limit=100&{query}"), None).await).await;
    let total = v["pagination"]["totalItems"].as_u64().unwrap();
    let listed = v["data"].as_array().unwrap().len() as u64;
    assert_eq!(total, listed, "{query}: the total drifted from the list");
    total
}

#[actix_web::test]
async fn range_totals_stay_exact_at_band_edges_as_listings_change() {
    let app = app().await;
    let (token, _) = user(&app).await;
    let mut cars = vec![];
    // Prices and mileages on and beside the kept bands' edges.
    for (model, year, price, mileage, fuel) in [
        ("A", 2015, 20000.0, 50000, "Petrol"),
        ("B", 2020, 10000.0, 49999, "Electric"),
        ("C", 2018, 19999.5, 10000, "Petrol"),
        ("D", 2022, 30000.0, 200000, "Electric"),
        ("E", 2010, 4999.0, 9000, "Diesel"),
        ("F", 2019, 25000.0, 75000, "Hybrid"),
    ] {
        let car = create_car(
            &app,
            &token,
            json!({"model": model, "year": year, "price": price, "mileage": mileage,
                   "fuelType": fuel}),
        )
        .await;
        cars.push(car["_id"].as_str().unwrap().to_owned());
    }
    let queries = [
        "minYear=2018",
        "minYear=2018&fuelType=Electric&sort=mileage:asc",
        "minPrice=10000&maxPrice=20000&minYear=2015",
        "maxMileage=50000&sort=price:asc",
        "minPrice=9000&maxPrice=21000",
        "minPrice=10000&maxMileage=49999",
        "maxMileage=9000",
        "maxYear=2019&maxMileage=200000&minPrice=5000",
        "minYear=2016&maxYear=2021&fuelType=Petrol&maxPrice=30000",
        "status=sold&minYear=2000",
    ];
    let mut before = vec![];
    for q in queries {
        before.push(range_total(&app, q).await);
    }
    assert_eq!(before[..4], [4, 2, 3, 4]);

    // A listing moves across a price and a mileage edge, one is sold, one removed.
    let path = |i: usize| format!("/cars/{}", cars[i]);
    let moved = json!({"price": 9000, "mileage": 50001, "year": 2021});
    let res = send(&app, Method::PUT, &path(0), &token, Some(moved)).await;
    assert_eq!(res.status(), 200);
    let sold = json!({"status": "sold"});
    let res = send(&app, Method::PUT, &path(1), &token, Some(sold)).await;
    assert_eq!(res.status(), 200);
    let res = send(&app, Method::DELETE, &path(2), &token, None).await;
    assert_eq!(res.status(), 200);
    let mut after = vec![];
    for q in queries {
        after.push(range_total(&app, q).await);
    }
    assert_eq!(after[..4], [3, 1, 0, 1]);
    assert_eq!(after[9], 1);
}
