//! Ads as posters see them, and the operator's create-ad command.

use super::*;
use serde_json::json;

#[actix_web::test]
async fn posters_see_funded_ads_of_their_country_newest_first() {
    let app = app().await;
    let token = poster(&app).await; // signed in from GB
    let first = ad(&app, "Phone launch", "GB", "1.50", "100");
    let second = ad(&app, "Bank app", "gb", "2", "50.25");
    let german = ad(&app, "Autobahn", "DE", "1", "10");

    let page = data(get(&app, "/ads", Some(&token)).await).await;
    assert_eq!(page["total"], 2);
    assert_eq!(page["page"], 1);
    assert_eq!(page["limit"], 20);
    let items = page["items"].as_array().unwrap();
    assert_eq!(items[0]["id"], second.as_str());
    assert_eq!(items[1]["id"], first.as_str());
    assert_eq!(items[1]["payoutCents"], 150);
    assert_eq!(items[1]["payoutUsd"], "1.50");
    assert_eq!(items[0]["budgetUsd"], "50.25");
    assert_eq!(items[0]["freeBudgetCents"], 5025);
    assert_eq!(items[0]["categoryId"], "technology");

    let de = data(get(&app, "/ads?countryCode=DE", Some(&token)).await).await;
    assert_eq!(de["items"][0]["id"], german.as_str());
    let paged = data(get(&app, "/ads?page=2&limit=1", Some(&token)).await).await;
    assert_eq!(paged["items"][0]["id"], first.as_str());
    assert_eq!(paged["total"], 2);
    let none = data(get(&app, "/ads?categoryId=travel", Some(&token)).await).await;
    assert_eq!(none["total"], 0);

    let one = data(get(&app, &format!("/ads/{first}"), Some(&token)).await).await;
    assert_eq!(one["title"], "Phone launch");
    let stats = data(get(&app, &format!("/ads/{first}/stats"), Some(&token)).await).await;
    assert_eq!(stats["subscriptions"], 0);
    assert_eq!(stats["freeBudgetUsd"], "100.00");
    assert_eq!(stats["screenshots"]["pending"], 0);
}

#[actix_web::test]
async fn ad_reads_refuse_bad_input() {
    let app = app().await;
    let token = poster(&app).await;
    refused(get(&app, "/ads", None).await, 401, "unauthorized").await;
    refused(
        get(&app, "/ads?limit=101", Some(&token)).await,
        400,
        "validation_error",
    )
    .await;
    refused(
        get(&app, "/ads?page=0", Some(&token)).await,
        400,
        "validation_error",
    )
    .await;
    refused(
        get(&app, "/ads?countryCode=QQ", Some(&token)).await,
        404,
        "country_not_found",
    )
    .await;
    refused(
        get(&app, "/ads/not-a-uuid", Some(&token)).await,
        404,
        "ad_not_found",
    )
    .await;
    let unknown = uuid::Uuid::new_v4();
    refused(
        get(&app, &format!("/ads/{unknown}"), Some(&token)).await,
        404,
        "ad_not_found",
    )
    .await;
    refused(
        get(&app, &format!("/ads/{unknown}/stats"), Some(&token)).await,
        404,
        "ad_not_found",
    )
    .await;
    let trending = data(get(&app, "/ads/trending", Some(&token)).await).await;
    assert_eq!(trending, json!([]));
}

#[actix_web::test]
async fn create_ad_refuses_what_it_cannot_make() {
    let app = app().await;
    let base = |extra: &[&'static str]| {
        let mut args = vec![
            "--title",
            "T",
            "--country",
            "DE",
            "--video",
            "https://v.example.com/a.mp4",
            "--payout-usd",
            "1.50",
            "--budget-usd",
            "100",
        ];
        args.extend_from_slice(extra);
        args
    };
    assert!(create_ad(&app, &base(&["--category", "Technology"])).is_ok());
    let err = create_ad(&app, &base(&["--category", "Knitting"])).unwrap_err();
    assert!(err.contains("category"), "{err}");
    let mut bad_country = base(&[]);
    bad_country[3] = "Narnia";
    assert!(create_ad(&app, &bad_country).is_err());
    let mut bad_money = base(&[]);
    bad_money[7] = "1.505";
    assert!(create_ad(&app, &bad_money).is_err());
    let mut bad_video = base(&[]);
    bad_video[5] = "ftp://v.example.com/a.mp4";
    assert!(create_ad(&app, &bad_video).is_err());
}

#[actix_web::test]
async fn create_ad_count_makes_that_many_alike_ads_and_prints_the_newest() {
    let app = app().await;
    let token = poster(&app).await;
    let last = create_ad(
        &app,
        &[
            "--title",
            "Batch",
            "--country",
            "GB",
            "--video",
            "https://videos.example.com/ad.mp4",
            "--payout-usd",
            "1",
            "--budget-usd",
            "5",
            "--category",
            "Travel",
            "--count",
            "3",
        ],
    )
    .expect("ads created");
    let travel = data(get(&app, "/ads?categoryId=travel", Some(&token)).await).await;
    assert_eq!(travel["total"], 3);
    let items = travel["items"].as_array().unwrap();
    assert_eq!(items.len(), 3);
    assert_eq!(items[0]["id"], last.as_str());
    for a in items {
        assert_eq!(a["title"], "Batch");
        assert_eq!(a["freeBudgetCents"], 500);
    }
    let all = data(get(&app, "/ads", Some(&token)).await).await;
    assert_eq!(all["total"], 3);
    let other = data(get(&app, "/ads?categoryId=technology", Some(&token)).await).await;
    assert_eq!(other["total"], 0);
}
