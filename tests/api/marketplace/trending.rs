//! Trending cars (decayed, weighted interactions of the last seven days), the counters of
//! many cars at once, and a car's analytics for its owner.

use super::*;
use chrono::Duration;
use reqwest::Method;

#[actix_web::test]
async fn trending_weighs_interactions_and_lets_them_fade() {
    let app = app().await;
    let admin = admin_token(&app).await;
    let (dealer_token, dealer_id) = dealer(&app, &admin).await;
    let (seller, _) = user(&app).await;
    let old = id_of(&create_car(&app, &dealer_token, json!({})).await);
    let liked = id_of(&create_car(&app, &seller, json!({"make": "Honda"})).await);
    let viewed = id_of(&create_car(&app, &seller, json!({"make": "Kia"})).await);
    let tie = id_of(&create_car(&app, &seller, json!({"make": "Mazda"})).await);
    let sold = id_of(&create_car(&app, &seller, json!({"make": "Fiat", "status": "sold"})).await);
    let (a, _) = user(&app).await;

    // Two inquiries (5 points each) three days ago: 10 × e^(-72/48) ≈ 2.23.
    for _ in 0..2 {
        let body = json!({"carId": old, "dealerId": dealer_id,
            "message": "Still available for sale?", "contactMethod": "phone"});
        let res = send(&app, Method::POST, "/customers/inquiries", &a, Some(body)).await;
        assert_ok(res, 201).await;
    }
    app.advance(Duration::days(3));
    // Today: a like (3), a view (1) on each of two cars, a like on a sold car (by a user
    // signed in now: tokens last a day).
    let (a, _) = user(&app).await;
    for id in [&liked, &sold] {
        let res = send(&app, Method::POST, &format!("/cars/{id}/like"), &a, None).await;
        assert_ok(res, 200).await;
    }
    for id in [&viewed, &tie] {
        let res = send(&app, Method::POST, &format!("/cars/{id}/views"), &a, None).await;
        assert_ok(res, 200).await;
    }

    let v = assert_ok(get(&app, "/cars/trending", None).await, 200).await;
    let ranked: Vec<String> = v.as_array().unwrap().iter().map(id_of).collect();
    // Equal scores: the newer listing first; sold cars and cars without events are not listed.
    assert_eq!(
        ranked,
        vec![liked.clone(), old.clone(), tie.clone(), viewed.clone()],
        "{v}"
    );
    assert!((v[0]["score"].as_f64().unwrap() - 3.0).abs() < 1e-9, "{v}");
    let expected = 10.0 * (-72.0f64 / 48.0).exp();
    assert!(
        (v[1]["score"].as_f64().unwrap() - expected).abs() < 1e-6,
        "{v}"
    );
    assert_eq!(v[1]["make"], "Toyota", "a whole Car");

    let top = assert_ok(get(&app, "/cars/trending?limit=1", None).await, 200).await;
    assert_eq!(top.as_array().unwrap().len(), 1);
    for bad in ["0", "51", "x"] {
        let res = get(&app, &format!("/cars/trending?limit={bad}"), None).await;
        assert_err(res, 400, "validation_error").await;
    }

    // Past seven days the inquiries no longer count.
    app.advance(Duration::days(4));
    let v = assert_ok(get(&app, "/cars/trending", None).await, 200).await;
    assert!(
        v.as_array()
            .unwrap()
            .iter()
            .all(|c| c["_id"] != old.as_str()),
        "{v}"
    );
}

#[actix_web::test]
async fn stats_come_for_many_cars_with_the_unknown_ones_named() {
    let app = app().await;
    let (seller, _) = user(&app).await;
    let (a, _) = user(&app).await;
    let one = id_of(&create_car(&app, &seller, json!({})).await);
    let two = id_of(&create_car(&app, &seller, json!({})).await);
    send(&app, Method::POST, &format!("/cars/{one}/like"), &a, None).await;
    send(
        &app,
        Method::POST,
        &format!("/customers/favorites/{one}"),
        &a,
        None,
    )
    .await;
    send(&app, Method::POST, &format!("/cars/{one}/views"), &a, None).await;
    let comment = json!({"text": "Good", "rating": 4});
    send(
        &app,
        Method::POST,
        &format!("/cars/{one}/comments"),
        &a,
        Some(comment),
    )
    .await;

    let unknown = "00000000-0000-0000-0000-000000000000";
    let body = json!({"carIds": [two, one, "junk", unknown, one]});
    let v = assert_ok(post(&app, "/cars/stats/batch", body).await, 200).await;
    assert_eq!(
        v["stats"],
        json!([
            {"carId": two, "views": 0, "likes": 0, "comments": 0, "favorites": 0, "inquiries": null, "shares": 0},
            {"carId": one, "views": 1, "likes": 1, "comments": 1, "favorites": 1, "inquiries": null, "shares": 0},
        ])
    );
    assert_eq!(v["notFound"], json!(["junk", unknown]));

    let many: Vec<String> = (0..101).map(|_| one.clone()).collect();
    for bad in [json!({"carIds": []}), json!({}), json!({"carIds": many})] {
        let v = assert_err(
            post(&app, "/cars/stats/batch", bad).await,
            400,
            "validation_error",
        )
        .await;
        assert_eq!(v["details"]["field"], "carIds", "{v}");
    }
    let res = post(&app, "/cars/stats/batch", json!({"carIds": "one"})).await;
    assert_err(res, 400, "validation_error").await;
}

#[actix_web::test]
async fn analytics_show_the_owner_thirty_days_of_views() {
    let app = app().await;
    let admin = admin_token(&app).await;
    let (owner, _) = user(&app).await;
    let id = id_of(&create_car(&app, &owner, json!({})).await);
    let (a, _) = user(&app).await;
    let (b, _) = user(&app).await;
    let path = format!("/cars/{id}/analytics");
    let views = format!("/cars/{id}/views");

    let yesterday = app.now().date_naive().to_string();
    assert_ok(send(&app, Method::POST, &views, &a, None).await, 200).await;
    assert_ok(send(&app, Method::POST, &views, &b, None).await, 200).await;
    next_utc_day(&app);
    let today = app.now().date_naive().to_string();
    assert_ok(send(&app, Method::POST, &views, &a, None).await, 200).await;
    send(&app, Method::POST, &format!("/cars/{id}/like"), &a, None).await;

    let v = assert_ok(get(&app, &path, Some(&owner)).await, 200).await;
    assert_eq!(v["views"], 3);
    assert_eq!(v["likes"], 1);
    assert_eq!(v["inquiries"], 0);
    assert_eq!(v["favorites"], 0);
    let history = v["viewHistory"].as_array().unwrap();
    assert_eq!(history.len(), 30);
    assert_eq!(history[29], json!({"date": today, "count": 1}));
    assert_eq!(history[28], json!({"date": yesterday, "count": 2}));
    assert_eq!(history[0]["count"], 0);
    let total: i64 = history.iter().map(|d| d["count"].as_i64().unwrap()).sum();
    assert_eq!(total, 3);

    assert_eq!(get(&app, &path, Some(&admin)).await.status(), 200);
    assert_err(get(&app, &path, Some(&a)).await, 403, "not_owner").await;
    assert_err(get(&app, &path, None).await, 401, "invalid_token").await;
    let gone = "/cars/00000000-0000-0000-0000-000000000000/analytics";
    assert_err(get(&app, gone, Some(&owner)).await, 404, "car_not_found").await;
}
