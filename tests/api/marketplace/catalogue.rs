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

#[actix_web::test]
async fn listings_add_unknown_makes_and_models() {
    let app = app().await;
    let (token, _) = user(&app).await;
    assert_err(
        get(&app, "/cars/models/trabant", None).await,
        404,
        "make_not_found",
    )
    .await;
    create_car(&app, &token, json!({"make": "Trabant", "model": "601"})).await;
    assert!(strings(&app, "/cars/makes")
        .await
        .iter()
        .any(|m| m == "Trabant"));
    assert_eq!(strings(&app, "/cars/models/TRABANT").await, ["601"]);
    // A known make keeps the catalogue's spelling; a new model of it joins its models.
    create_car(&app, &token, json!({"make": "bmw", "model": "M5 Touring"})).await;
    let bmw = strings(&app, "/cars/models/BMW").await;
    assert!(bmw.iter().any(|m| m == "M5 Touring"), "{bmw:?}");
    let makes = strings(&app, "/cars/makes").await;
    assert_eq!(
        makes
            .iter()
            .filter(|m| m.eq_ignore_ascii_case("bmw"))
            .count(),
        1
    );
    // Changing a listing notes its new model too.
    let car = create_car(&app, &token, json!({})).await;
    let path = format!("/cars/{}", car["_id"].as_str().unwrap());
    let res = send(
        &app,
        reqwest::Method::PUT,
        &path,
        &token,
        Some(json!({"model": "Corolla GR"})),
    )
    .await;
    assert_ok(res, 200).await;
    assert!(strings(&app, "/cars/models/toyota")
        .await
        .iter()
        .any(|m| m == "Corolla GR"));
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
