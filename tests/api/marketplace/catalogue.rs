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
