//! Categories, countries and cities: open, unpaginated.

use super::*;

#[actix_web::test]
async fn categories_are_seeded_and_found_by_id() {
    let app = app().await;
    let all = data(get(&app, "/categories", None).await).await;
    let all = all.as_array().unwrap();
    assert_eq!(all.len(), 12, "{all:?}");
    let names: Vec<&str> = all.iter().map(|c| c["name"].as_str().unwrap()).collect();
    for seeded in [
        "Food & Drink",
        "Fashion",
        "Beauty & Care",
        "Technology",
        "Finance",
    ] {
        assert!(names.contains(&seeded), "{seeded} is not seeded: {names:?}");
    }
    assert!(
        all.iter()
            .all(|c| !c["description"].as_str().unwrap_or("").is_empty()),
        "{all:?}"
    );
    let one = data(get(&app, "/categories/technology", None).await).await;
    assert_eq!(one["id"], "technology");
    assert_eq!(one["name"], "Technology");
    assert_eq!(one["description"], "Phones, gadgets, apps and software");
    let id = all[0]["id"].as_str().unwrap();
    let first = data(get(&app, &format!("/categories/{id}"), None).await).await;
    assert_eq!(first, all[0]);
    refused(
        get(&app, "/categories/no-such-thing", None).await,
        404,
        "category_not_found",
    )
    .await;
}

#[actix_web::test]
async fn countries_by_any_code_and_their_cities() {
    let app = app().await;
    let all = data(get(&app, "/countries", None).await).await;
    assert!(!all.as_array().unwrap().is_empty());
    let gb = data(get(&app, "/countries/gb", None).await).await;
    assert_eq!(gb["alpha3"], "GBR");
    assert_eq!(gb["dialCode"], "+44");
    assert_eq!(data(get(&app, "/countries/GBR", None).await).await, gb);
    refused(
        get(&app, "/countries/XYZ", None).await,
        404,
        "country_not_found",
    )
    .await;
    let cities = data(get(&app, "/countries/GB/cities", None).await).await;
    let cities = cities.as_array().unwrap();
    assert!(!cities.is_empty(), "no cities for GB");
    assert_eq!(cities[0]["name"], "London", "{cities:?}");
    assert!(
        cities
            .iter()
            .all(|c| !c["name"].as_str().unwrap_or("").trim().is_empty()),
        "a city without a name: {cities:?}"
    );
    refused(
        get(&app, "/countries/XX/cities", None).await,
        404,
        "country_not_found",
    )
    .await;
}
