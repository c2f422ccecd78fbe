//! The car catalogue: makes, models of a make, body types, features (no auth).

use super::*;

async fn strings(app: &TestApp, path: &str) -> Vec<String> {
    let data = assert_ok(get(app, path, None).await, 200).await;
    serde_json::from_value(data).expect("an array of strings")
}

#[actix_web::test]
async fn the_catalogue_lists_real_makes_models_body_types_and_features() {
    let app = app().await;
    let makes = strings(&app, "/cars/makes").await;
    assert!(makes.len() >= 40, "{makes:?}");
    let mut sorted = makes.clone();
    sorted.sort_by_key(|m| m.to_lowercase());
    assert_eq!(makes, sorted);
    for make in [
        "Toyota",
        "Mercedes-Benz",
        "Land Rover",
        "Tesla",
        "Ram",
        "GMC",
    ] {
        assert!(makes.iter().any(|m| m == make), "{make}");
    }
    let mut total = 0;
    for make in &makes {
        let path = format!("/cars/models/{}", make.replace(' ', "%20"));
        total += strings(&app, &path).await.len();
    }
    assert!(total >= 300, "{total} models");

    let toyota = strings(&app, "/cars/models/toyota").await;
    for model in ["Corolla", "Camry", "RAV4", "Tacoma"] {
        assert!(toyota.iter().any(|m| m == model), "{model} in {toyota:?}");
    }
    assert_eq!(
        strings(&app, "/cars/models/TESLA").await,
        strings(&app, "/cars/models/Tesla").await
    );
    let v = assert_err(
        get(&app, "/cars/models/Trabant", None).await,
        404,
        "make_not_found",
    )
    .await;
    assert!(v["message"].is_string());

    let body_types = strings(&app, "/cars/body-types").await;
    for body in [
        "Sedan",
        "SUV",
        "Hatchback",
        "Coupe",
        "Convertible",
        "Pickup",
        "Wagon",
        "Van",
        "Minivan",
        "Crossover",
    ] {
        assert!(body_types.iter().any(|b| b == body), "{body}");
    }
    let features = strings(&app, "/cars/features").await;
    assert!(features.len() >= 40, "{features:?}");
    for feature in ["Bluetooth", "Backup Camera", "Sunroof", "Apple CarPlay"] {
        assert!(features.iter().any(|f| f == feature), "{feature}");
    }
}

#[actix_web::test]
async fn a_restart_on_the_same_database_adds_nothing_twice() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}/shared.db?mode=rwc", dir.path().display());
    let first = app_with(|s| s.database.url = url.clone()).await;
    let makes = strings(&first, "/cars/makes").await;
    let second = app_with(|s| s.database.url = url.clone()).await;
    assert_eq!(strings(&second, "/cars/makes").await, makes);
    assert_eq!(
        strings(&second, "/cars/models/bmw").await,
        strings(&first, "/cars/models/BMW").await
    );
}

/// A fresh account that verified its phone with the code it was sent: its token.
async fn verified_seller(app: &TestApp) -> String {
    let v = signup(app, &crate::helpers::phone(), "secret1").await;
    assert_eq!(v["user"]["isPhoneVerified"], true);
    v["token"].as_str().unwrap().to_owned()
}

/// What the search's typo vocabulary offers for the one-word query `word` (the advanced
/// search shows each word with the listed words it may stand for).
async fn corrections(app: &TestApp, word: &str) -> Vec<String> {
    let res = post(app, "/cars/advanced-search", json!({"query": word})).await;
    let v = json_body(res).await;
    serde_json::from_value(v["search"]["terms"][0].clone()).expect("the word's terms")
}

fn has(names: &[String], name: &str) -> bool {
    names.iter().any(|n| n.eq_ignore_ascii_case(name))
}

/// The attack: one seller renames a listing five times and deletes it; none of the
/// names reaches the public catalogue or the typo vocabulary, and the listing itself kept
/// the seller's text while it existed.
#[actix_web::test]
async fn one_sellers_junk_makes_never_reach_the_catalogue() {
    let app = app().await;
    let token = verified_seller(&app).await;
    let car = create_car(&app, &token, json!({})).await;
    let path = format!("/cars/{}", car["_id"].as_str().unwrap());
    for i in 0..5 {
        let junk =
            json!({"make": format!("Cheaploans Call 0900-{i}"), "model": format!("Loanz{i}")});
        let res = send(&app, reqwest::Method::PUT, &path, &token, Some(junk)).await;
        let updated = assert_ok(res, 200).await;
        assert_eq!(updated["make"], format!("Cheaploans Call 0900-{i}"));
    }
    let res = send(&app, reqwest::Method::DELETE, &path, &token, None).await;
    assert_ok(res, 200).await;
    let makes = strings(&app, "/cars/makes").await;
    assert!(
        !makes
            .iter()
            .any(|m| m.to_lowercase().contains("cheaploans")),
        "{makes:?}"
    );
    assert_err(
        get(&app, "/cars/models/Cheaploans%20Call%200900-4", None).await,
        404,
        "make_not_found",
    )
    .await;
    assert_eq!(corrections(&app, "cheaploanz").await, ["cheaploanz"]);
    assert_eq!(corrections(&app, "loanzz").await, ["loanzz"]);
    // The catalogue's own words are still corrected.
    assert!(has(&corrections(&app, "toyta").await, "toyota"));
}

/// The search keeps the catalogue's names in memory; a name the catalogue gains is searched
/// by at once: a model of several words is found written as one word right after an
/// administrator lists it, though the search read the names before.
#[actix_web::test]
async fn a_name_the_catalogue_gains_is_searched_at_once() {
    let app = app().await;
    assert!(!has(
        &corrections(&app, "launchedition").await,
        "launch edition"
    ));
    let admin = admin_token(&app).await;
    create_car(
        &app,
        &admin,
        json!({"make": "Aptera", "model": "Launch Edition"}),
    )
    .await;
    assert!(
        has(&corrections(&app, "launchedition").await, "launch edition"),
        "the names were read again"
    );
}

/// A new make or model enters the catalogue (makes, models, typo vocabulary) once three
/// distinct verified sellers list it; a seller's second listing does not count twice; an
/// administrator's listing adds one at once.
#[actix_web::test]
async fn three_verified_sellers_or_an_administrator_bring_a_new_make_in() {
    let app = app().await;
    let (a, b, c) = (
        verified_seller(&app).await,
        verified_seller(&app).await,
        verified_seller(&app).await,
    );
    let rimac = json!({"make": "Rimac", "model": "Nevera"});
    let zephyr = json!({"make": "Toyota", "model": "Zephyrix"});
    for token in [&a, &a, &b] {
        create_car(&app, token, rimac.clone()).await;
        create_car(&app, token, zephyr.clone()).await;
    }
    assert!(!has(&strings(&app, "/cars/makes").await, "Rimac"));
    assert_err(
        get(&app, "/cars/models/rimac", None).await,
        404,
        "make_not_found",
    )
    .await;
    assert!(!has(
        &strings(&app, "/cars/models/toyota").await,
        "Zephyrix"
    ));
    assert_eq!(corrections(&app, "rimak").await, ["rimak"]);
    // The listings hold their own text meanwhile.
    let res = get(&app, "/cars?make=RIMAC", None).await;
    assert_eq!(json_body(res).await["pagination"]["totalItems"], 3);

    create_car(&app, &c, rimac.clone()).await;
    create_car(&app, &c, zephyr.clone()).await;
    assert!(has(&strings(&app, "/cars/makes").await, "Rimac"));
    assert_eq!(strings(&app, "/cars/models/RIMAC").await, ["Nevera"]);
    assert!(has(&strings(&app, "/cars/models/toyota").await, "Zephyrix"));
    assert!(has(&corrections(&app, "rimak").await, "rimac"));
    assert!(has(&corrections(&app, "zephyrax").await, "zephyrix"));

    let admin = admin_token(&app).await;
    create_car(
        &app,
        &admin,
        json!({"make": "Aptera", "model": "Launch Edition"}),
    )
    .await;
    assert!(has(&strings(&app, "/cars/makes").await, "Aptera"));
    assert_eq!(
        strings(&app, "/cars/models/aptera").await,
        ["Launch Edition"]
    );
    // A known make keeps the catalogue's spelling; the makes list holds it once.
    create_car(&app, &admin, json!({"make": "bmw", "model": "M5 Touring"})).await;
    assert!(has(&strings(&app, "/cars/models/BMW").await, "M5 Touring"));
    let makes = strings(&app, "/cars/makes").await;
    assert_eq!(
        makes
            .iter()
            .filter(|m| m.eq_ignore_ascii_case("bmw"))
            .count(),
        1
    );
    assert!(makes.iter().any(|m| m == "BMW"));
}

#[actix_web::test]
async fn templates_come_from_listings_then_the_catalogue() {
    let app = app().await;
    let path = "/cars/templates/toyota/corolla";
    let empty = assert_ok(get(&app, path, None).await, 200).await;
    assert_eq!(empty["averagePrice"], 0.0);
    assert_eq!(
        empty["commonSpecs"],
        json!({"fuelType": "Petrol", "transmission": "Automatic", "bodyType": "Sedan"})
    );
    let defaults = empty["suggestedFeatures"].as_array().unwrap().clone();
    assert_eq!(defaults[0], "Bluetooth", "{defaults:?}");

    let (token, _) = user(&app).await;
    for (price, status, fuel, features) in [
        (
            10000,
            "active",
            "Hybrid",
            json!(["Sunroof", "Heated Seats"]),
        ),
        (20000, "active", "Hybrid", json!(["Sunroof"])),
        (
            0,
            "active",
            "Petrol",
            json!(["Sunroof", "Heated Seats", "Tow Package"]),
        ),
        (90000, "sold", "Hybrid", json!([])),
    ] {
        create_car(
            &app,
            &token,
            json!({"make": "TOYOTA", "model": "corolla", "price": price,
            "status": status, "fuelType": fuel, "transmission": "Manual", "features": features}),
        )
        .await;
    }
    let t = assert_ok(get(&app, "/cars/templates/Toyota/Corolla", None).await, 200).await;
    // Active listings with a price: (10000 + 20000) / 2.
    assert_eq!(t["averagePrice"], 15000.0);
    assert_eq!(
        t["commonSpecs"],
        json!({"fuelType": "Hybrid", "transmission": "Manual", "bodyType": "Sedan"})
    );
    let suggested: Vec<&str> = t["suggestedFeatures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert_eq!(
        &suggested[..4],
        ["Sunroof", "Heated Seats", "Tow Package", "Bluetooth"]
    );
    assert_eq!(suggested.iter().filter(|f| **f == "Sunroof").count(), 1);

    assert_err(
        get(&app, "/cars/templates/Trabant/601", None).await,
        404,
        "make_not_found",
    )
    .await;
    assert_err(
        get(&app, "/cars/templates/Toyota/Trabbi", None).await,
        404,
        "model_not_found",
    )
    .await;
}
