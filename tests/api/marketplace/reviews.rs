//! Reviews of dealers: one per customer and dealer, newest first, the dealer's rating moves
//! with each.

use super::*;
use reqwest::Method;

async fn review(
    app: &TestApp,
    dealer: &str,
    token: &str,
    rating: Value,
    comment: &str,
) -> Response {
    let path = format!("/dealers/{dealer}/reviews");
    send(
        app,
        Method::POST,
        &path,
        token,
        Some(json!({"rating": rating, "comment": comment})),
    )
    .await
}

#[actix_web::test]
async fn customers_review_once_and_the_rating_follows() {
    let app = app().await;
    let admin = admin_token(&app).await;
    let (_, dealer_id) = dealer(&app, &admin).await;
    let (first, second) = (user(&app).await.0, user(&app).await.0);

    let created = assert_ok(
        review(&app, &dealer_id, &first, json!(5), "Great service").await,
        201,
    )
    .await;
    assert_eq!(created["rating"], 5);
    assert_eq!(created["comment"], "Great service");
    assert_eq!(created["dealerId"], dealer_id.as_str());
    assert_eq!(created["author"]["name"], "Ada Buyer");
    app.clock.advance(chrono::Duration::seconds(5));
    assert_ok(
        review(&app, &dealer_id, &second, json!(2), "Slow paperwork").await,
        201,
    )
    .await;
    let res = review(&app, &dealer_id, &first, json!(1), "Changed my mind").await;
    assert_err(res, 409, "review_exists").await;
    // An administrator is a customer here too.
    assert_ok(
        review(&app, &dealer_id, &admin, json!(3), "Fine").await,
        201,
    )
    .await;

    let d = assert_ok(
        get(&app, &format!("/dealers/{}", dealer_id), None).await,
        200,
    )
    .await;
    assert_eq!(d["reviewCount"], 3);
    assert_eq!(d["rating"], 3.33);

    let path = format!("/dealers/{}/reviews", dealer_id);
    let v = json_body(get(&app, &path, None).await).await;
    assert_eq!(v["success"], true);
    let comments: Vec<_> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["comment"].clone())
        .collect();
    assert_eq!(
        comments,
        [
            json!("Fine"),
            json!("Slow paperwork"),
            json!("Great service")
        ]
    );
    assert_eq!(v["pagination"]["totalItems"], 3);
    let v = json_body(get(&app, &format!("{path}?page=2&limit=2"), None).await).await;
    assert_eq!(v["data"][0]["comment"], "Great service", "{v}");
    assert_eq!(v["pagination"]["hasPrevPage"], true);
}

#[actix_web::test]
async fn refused_reviews() {
    let app = app().await;
    let admin = admin_token(&app).await;
    let (dealer_token, dealer_id) = dealer(&app, &admin).await;
    let customer = user(&app).await.0;

    let res = review(
        &app,
        &dealer_id,
        &dealer_token,
        json!(5),
        "Best dealer ever",
    )
    .await;
    assert_err(res, 403, "self_review").await;
    for (rating, comment, field) in [
        (json!(0), "ok", "rating"),
        (json!(6), "ok", "rating"),
        (json!(null), "ok", "rating"),
        (json!(4), "", "comment"),
        (json!(4), &*"x".repeat(1001), "comment"),
    ] {
        let res = review(&app, &dealer_id, &customer, rating, comment).await;
        let v = assert_err(res, 400, "validation_error").await;
        assert_eq!(v["details"]["field"], field, "{v}");
    }
    let res = review(&app, &dealer_id, &customer, json!("five"), "ok").await;
    assert_err(res, 400, "validation_error").await;
    let res = post(
        &app,
        &format!("/dealers/{}/reviews", dealer_id),
        json!({"rating": 4, "comment": "ok"}),
    )
    .await;
    assert_err(res, 401, "invalid_token").await;
    // Only dealers are reviewed.
    let me = assert_ok(get(&app, "/auth/me", Some(&customer)).await, 200).await;
    let other = user(&app).await.0;
    for id in [me["_id"].as_str().unwrap(), "nope"] {
        assert_err(
            review(&app, id, &other, json!(4), "ok").await,
            404,
            "dealer_not_found",
        )
        .await;
        let res = get(&app, &format!("/dealers/{id}/reviews"), None).await;
        assert_err(res, 404, "dealer_not_found").await;
    }
    let d = assert_ok(
        get(&app, &format!("/dealers/{}", dealer_id), None).await,
        200,
    )
    .await;
    assert_eq!(d["reviewCount"], 0);
}
