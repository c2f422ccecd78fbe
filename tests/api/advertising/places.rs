//! Categories, countries and cities: open, unpaginated.

use super::*;

#[actix_web::test]
async fn categories_are_seeded_and_found_by_id() {
    let app = app().await;
    let all = data(get(&app, "/categories", None).await).await;
    let all = all.as_array().unwrap();
    assert!(all.len() >= 10, "{all:?}");
    let id = all[0]["id"].as_str().unwrap();
    let one = data(get(&app, &format!("/categories/{id}"), None).await).await;
    assert_eq!(one, all[0]);
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
    assert!(cities.is_array());
    refused(
        get(&app, "/countries/XX/cities", None).await,
        404,
        "country_not_found",
    )
    .await;
}
