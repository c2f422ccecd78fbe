//! Car interactions: likes toggled once per user (also under concurrency), views counted
//! once per viewer and UTC day, comments with ratings and threaded replies, comment likes,
//! shares, test drives and who may read them, and the interaction rate limits.

use super::*;
use chrono::Duration;
use reqwest::Method;

/// A listing by a fresh user: `(owner token, car id)`.
async fn listed(app: &TestApp) -> (String, String) {
    let (token, _) = user(app).await;
    let car = create_car(app, &token, json!({})).await;
    (token, car["_id"].as_str().unwrap().to_owned())
}

async fn post_as(app: &TestApp, path: &str, token: &str, body: Option<Value>) -> Response {
    send(app, Method::POST, path, token, body).await
}

async fn car(app: &TestApp, id: &str) -> Value {
    assert_ok(get(app, &format!("/cars/{id}"), None).await, 200).await
}

#[actix_web::test]
async fn a_like_toggles_and_counts_once_per_user() {
    let app = app().await;
    let (_, id) = listed(&app).await;
    let (a, _) = user(&app).await;
    let (b, _) = user(&app).await;
    let path = format!("/cars/{id}/like");
    let v = assert_ok(post_as(&app, &path, &a, None).await, 200).await;
    assert_eq!(v, json!({"liked": true, "likeCount": 1}));
    let v = assert_ok(post_as(&app, &path, &a, None).await, 200).await;
    assert_eq!(v, json!({"liked": false, "likeCount": 0}));
    assert_ok(post_as(&app, &path, &a, None).await, 200).await;
    let v = assert_ok(post_as(&app, &path, &b, None).await, 200).await;
    assert_eq!(v, json!({"liked": true, "likeCount": 2}));
    assert_eq!(car(&app, &id).await["likeCount"], 2);

    assert_err(post(&app, &path, json!({})).await, 401, "invalid_token").await;
    for missing in ["00000000-0000-0000-0000-000000000000", "not-an-id"] {
        let res = post_as(&app, &format!("/cars/{missing}/like"), &a, None).await;
        assert_err(res, 404, "car_not_found").await;
    }
}

#[actix_web::test]
async fn concurrent_likes_from_many_users_leave_the_exact_count() {
    let app = app().await;
    let (_, id) = listed(&app).await;
    let mut tokens = Vec::new();
    for _ in 0..16 {
        tokens.push(user(&app).await.0);
    }
    let path = format!("/cars/{id}/like");
    let likes = tokens.iter().map(|t| post_as(&app, &path, t, None));
    for res in futures_util::future::join_all(likes).await {
        assert_eq!(res.status(), 200);
    }
    assert_eq!(car(&app, &id).await["likeCount"], 16);
    // Half of them take it back, all at once.
    let unlikes = tokens[..8].iter().map(|t| post_as(&app, &path, t, None));
    for res in futures_util::future::join_all(unlikes).await {
        assert_eq!(assert_ok(res, 200).await["liked"], false);
    }
    assert_eq!(car(&app, &id).await["likeCount"], 8);
}

#[actix_web::test]
async fn a_view_counts_once_per_viewer_and_utc_day() {
    let app = app().await;
    let (owner, id) = listed(&app).await;
    let (viewer, _) = user(&app).await;
    let path = format!("/cars/{id}/views");
    let anon = |app: &TestApp| req(app, Method::POST, &path).send();
    let v = assert_ok(anon(&app).await.unwrap(), 200).await;
    assert_eq!(v, json!({"viewCount": 1, "counted": true}));
    let v = assert_ok(anon(&app).await.unwrap(), 200).await;
    assert_eq!(v, json!({"viewCount": 1, "counted": false}));
    let v = assert_ok(post_as(&app, &path, &viewer, None).await, 200).await;
    assert_eq!(v, json!({"viewCount": 2, "counted": true}));
    let v = assert_ok(post_as(&app, &path, &viewer, None).await, 200).await;
    assert_eq!(v["counted"], false);
    // The owner looking at their own listing is not a view.
    let v = assert_ok(post_as(&app, &path, &owner, None).await, 200).await;
    assert_eq!(v, json!({"viewCount": 2, "counted": false}));
    let v = assert_ok(get(&app, &path, None).await, 200).await;
    assert_eq!(v, json!({"viewCount": 2, "todayCount": 2}));
    assert_eq!(car(&app, &id).await["viewCount"], 2);

    next_utc_day(&app);
    let v = assert_ok(anon(&app).await.unwrap(), 200).await;
    assert_eq!(v, json!({"viewCount": 3, "counted": true}));
    let v = assert_ok(get(&app, &path, None).await, 200).await;
    assert_eq!(v, json!({"viewCount": 3, "todayCount": 1}));

    // A token that is sent must be valid: it is never taken for an anonymous viewer.
    let res = post_as(&app, &path, "not-a-token", None).await;
    assert_err(res, 401, "invalid_token").await;
    let gone = "/cars/00000000-0000-0000-0000-000000000000/views";
    assert_err(get(&app, gone, None).await, 404, "car_not_found").await;
    assert_err(post(&app, gone, json!({})).await, 404, "car_not_found").await;
}

#[actix_web::test]
async fn comments_carry_a_rating_and_replies_join_their_thread() {
    let app = app().await;
    let (owner, id) = listed(&app).await;
    let (a, a_id) = user(&app).await;
    let (b, _) = user(&app).await;
    let path = format!("/cars/{id}/comments");
    let body = json!({"text": "Lovely car, drove it twice.", "rating": 5});
    assert_err(post(&app, &path, body.clone()).await, 401, "invalid_token").await;
    let res = post_as(&app, &path, &owner, Some(body.clone())).await;
    assert_err(res, 403, "own_car").await;
    let cases = [
        (json!({"rating": 4}), "text"),
        (json!({"text": "  ", "rating": 4}), "text"),
        (json!({"text": "x".repeat(1001), "rating": 4}), "text"),
        (json!({"text": "ok", "rating": 0}), "rating"),
        (json!({"text": "ok", "rating": 6}), "rating"),
        (json!({"text": "ok", "rating": 4.5}), "rating"),
        (json!({"text": "ok", "rating": "great"}), "rating"),
    ];
    assert_fields_refused(&app, &path, &a, cases.to_vec()).await;
    let res = post_as(
        &app,
        "/cars/00000000-0000-0000-0000-000000000000/comments",
        &a,
        Some(body.clone()),
    )
    .await;
    assert_err(res, 404, "car_not_found").await;

    let first = assert_ok(post_as(&app, &path, &a, Some(body)).await, 201).await;
    assert_eq!(first["rating"], 5);
    assert_eq!(first["userId"], a_id.as_str());
    assert_eq!(first["userName"], "Ada Buyer");
    assert_eq!(first["parentId"], Value::Null);
    app.advance(Duration::seconds(5));
    let second = json!({"text": "Too pricey for me.", "rating": "2"});
    let second = assert_ok(post_as(&app, &path, &b, Some(second)).await, 201).await;
    assert_eq!(second["rating"], 2);

    let first_id = first["_id"].as_str().unwrap();
    let reply_path = format!("/cars/comments/{first_id}/reply");
    let reply = json!({"text": "Thank you!"});
    let r1 = assert_ok(post_as(&app, &reply_path, &owner, Some(reply)).await, 201).await;
    assert_eq!(r1["parentId"], first_id);
    assert_eq!(r1["rating"], Value::Null);
    // A reply to a reply joins the thread of the comment it belongs to.
    let r1_id = r1["_id"].as_str().unwrap();
    let res = post_as(
        &app,
        &format!("/cars/comments/{r1_id}/reply"),
        &a,
        Some(json!({"text": "Welcome"})),
    )
    .await;
    assert_eq!(assert_ok(res, 201).await["parentId"], first_id);
    let res = post_as(&app, &reply_path, &a, Some(json!({"text": ""}))).await;
    assert_err(res, 400, "validation_error").await;
    for missing in ["00000000-0000-0000-0000-000000000000", "nope"] {
        let res = post_as(
            &app,
            &format!("/cars/comments/{missing}/reply"),
            &a,
            Some(json!({"text": "hi"})),
        )
        .await;
        assert_err(res, 404, "comment_not_found").await;
        let res = post_as(&app, &format!("/cars/comments/{missing}/like"), &a, None).await;
        assert_err(res, 404, "comment_not_found").await;
    }

    let res = get(&app, &format!("{path}?limit=1"), None).await;
    let v = json_body(res).await;
    assert_eq!(v["pagination"]["totalItems"], 2, "{v}");
    assert_eq!(v["data"][0]["_id"], second["_id"], "newest first");
    let v = json_body(get(&app, &format!("{path}?page=2&limit=1"), None).await).await;
    let thread = &v["data"][0];
    assert_eq!(thread["_id"], first_id);
    assert_eq!(thread["userName"], "Ada Buyer");
    let replies = thread["replies"].as_array().unwrap();
    assert_eq!(replies.len(), 2);
    assert_eq!(replies[0]["text"], "Thank you!", "oldest reply first");
    assert_eq!(car(&app, &id).await["commentCount"], 4);

    let like = format!("/cars/comments/{first_id}/like");
    let v = assert_ok(post_as(&app, &like, &b, None).await, 200).await;
    assert_eq!(v, json!({"liked": true, "likeCount": 1}));
    let v = assert_ok(post_as(&app, &like, &owner, None).await, 200).await;
    assert_eq!(v["likeCount"], 2);
    let v = assert_ok(post_as(&app, &like, &b, None).await, 200).await;
    assert_eq!(v, json!({"liked": false, "likeCount": 1}));
    assert_err(post(&app, &like, json!({})).await, 401, "invalid_token").await;
    let unknown = get(
        &app,
        "/cars/00000000-0000-0000-0000-000000000000/comments",
        None,
    )
    .await;
    assert_err(unknown, 404, "car_not_found").await;
}

#[actix_web::test]
async fn shares_are_counted_with_an_optional_channel() {
    let app = app().await;
    let (_, id) = listed(&app).await;
    let (a, _) = user(&app).await;
    let path = format!("/cars/{id}/share");
    let res = req(&app, Method::POST, &path).send().await.unwrap();
    assert_eq!(assert_ok(res, 200).await, json!({"shareCount": 1}));
    let res = post(&app, &path, json!({"channel": "WhatsApp"})).await;
    assert_eq!(assert_ok(res, 200).await["shareCount"], 2);
    let res = post_as(&app, &path, &a, Some(json!({}))).await;
    assert_eq!(assert_ok(res, 200).await["shareCount"], 3);
    let res = post(&app, &path, json!({"channel": "two words"})).await;
    let v = assert_err(res, 400, "validation_error").await;
    assert_eq!(v["details"]["field"], "channel");
    let res = req(&app, Method::POST, &path)
        .header("Content-Type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_err(res, 400, "validation_error").await;
    assert_eq!(car(&app, &id).await["_id"], id.as_str());
    let gone = "/cars/00000000-0000-0000-0000-000000000000/share";
    assert_err(post(&app, gone, json!({})).await, 404, "car_not_found").await;
    let stats = post(&app, "/cars/stats/batch", json!({"carIds": [id]})).await;
    assert_eq!(assert_ok(stats, 200).await["stats"][0]["shares"], 3);
}

#[actix_web::test]
async fn test_drives_are_asked_for_a_real_future_slot_and_read_by_the_owner() {
    let app = app().await;
    let admin = admin_token(&app).await;
    let (owner, id) = listed(&app).await;
    let (a, a_id) = user(&app).await;
    let (b, _) = user(&app).await;
    let today = app.now().date_naive();
    let tomorrow = (today + Duration::days(1)).to_string();
    let path = format!("/cars/{id}/test-drive");
    let body = json!({"preferredDate": tomorrow, "preferredTime": "14:30",
                      "message": "Saturday works best."});
    assert_err(post(&app, &path, body.clone()).await, 401, "invalid_token").await;
    let res = post_as(&app, &path, &owner, Some(body.clone())).await;
    assert_err(res, 403, "own_car").await;
    let yesterday = (today - Duration::days(1)).to_string();
    let cases = [
        (json!({"preferredTime": "14:30"}), "preferredDate"),
        (
            json!({"preferredDate": yesterday, "preferredTime": "14:30"}),
            "preferredDate",
        ),
        (
            json!({"preferredDate": "2026-02-30", "preferredTime": "14:30"}),
            "preferredDate",
        ),
        (
            json!({"preferredDate": tomorrow, "preferredTime": 1430}),
            "preferredTime",
        ),
        (
            json!({"preferredDate": tomorrow, "preferredTime": " "}),
            "preferredTime",
        ),
        (json!({"preferredDate": tomorrow}), "preferredTime"),
        (
            json!({"preferredDate": tomorrow, "preferredTime": "14:30", "message": "x".repeat(1001)}),
            "message",
        ),
    ];
    assert_fields_refused(&app, &path, &a, cases.to_vec()).await;
    let today_slot = json!({"preferredDate": today.to_string(), "preferredTime": "23:59"});
    let first = assert_ok(post_as(&app, &path, &a, Some(today_slot)).await, 201).await;
    assert_eq!(first["status"], "pending");
    assert_eq!(first["message"], "");
    app.advance(Duration::seconds(5));
    let second = assert_ok(post_as(&app, &path, &b, Some(body)).await, 201).await;
    assert_eq!(second["preferredDate"], tomorrow.as_str());
    assert_eq!(second["preferredTime"], "14:30");

    let list_path = format!("/cars/{id}/test-drives");
    let res = get(&app, &list_path, Some(&owner)).await;
    let v = json_body(res).await;
    assert_eq!(v["pagination"]["totalItems"], 2, "{v}");
    assert_eq!(v["data"][0]["_id"], second["_id"]);
    assert_eq!(v["data"][1]["userId"], a_id.as_str());
    assert_eq!(get(&app, &list_path, Some(&admin)).await.status(), 200);
    assert_err(get(&app, &list_path, Some(&a)).await, 403, "not_owner").await;
    assert_err(get(&app, &list_path, None).await, 401, "invalid_token").await;

    // A sold car takes no more requests.
    let res = send(
        &app,
        Method::PUT,
        &format!("/cars/{id}"),
        &owner,
        Some(json!({"status": "sold"})),
    )
    .await;
    assert_ok(res, 200).await;
    let slot = json!({"preferredDate": tomorrow, "preferredTime": "10:00"});
    let res = post_as(&app, &path, &a, Some(slot)).await;
    assert_err(res, 409, "car_not_available").await;
}

#[actix_web::test]
async fn likes_comments_and_views_have_their_own_limits_per_caller() {
    let app = app_with(|s| {
        let l = &mut s.services.marketplace.rate_limits;
        l.likes.limit = 2;
        l.comments.limit = 1;
        l.views.limit = 1;
    })
    .await;
    let (owner, id) = listed(&app).await;
    let (a, _) = user(&app).await;
    let like = format!("/cars/{id}/like");
    for _ in 0..2 {
        let res = post_as(&app, &like, &a, None).await;
        assert_eq!(res.headers()["x-ratelimit-limit"], "2");
        assert_ok(res, 200).await;
    }
    let body = json!({"text": "Nice", "rating": 4});
    let c = assert_ok(
        post_as(&app, &format!("/cars/{id}/comments"), &a, Some(body)).await,
        201,
    )
    .await;
    // Comment likes count with car likes.
    let comment_like = format!("/cars/comments/{}/like", c["_id"].as_str().unwrap());
    let res = post_as(&app, &comment_like, &a, None).await;
    assert_eq!(res.headers()["x-ratelimit-remaining"], "0");
    assert!(res.headers().contains_key("x-ratelimit-reset"));
    assert!(res.headers().contains_key("retry-after"));
    let v = assert_err(res, 429, "rate_limit_exceeded").await;
    let retry = v["retryAfter"].as_i64().expect("retryAfter");
    assert!((1..=901).contains(&retry), "{v}");
    // Replies count with comments.
    let reply = format!("/cars/comments/{}/reply", c["_id"].as_str().unwrap());
    let res = post_as(&app, &reply, &a, Some(json!({"text": "again"}))).await;
    assert_err(res, 429, "rate_limit_exceeded").await;
    // Another caller has a bucket of their own.
    assert_ok(post_as(&app, &like, &owner, None).await, 200).await;
    // Anonymous views count per address.
    let views = format!("/cars/{id}/views");
    assert_ok(post(&app, &views, json!({})).await, 200).await;
    assert_err(
        post(&app, &views, json!({})).await,
        429,
        "rate_limit_exceeded",
    )
    .await;

    app.advance(Duration::seconds(retry));
    assert_ok(post_as(&app, &comment_like, &a, None).await, 200).await;
}
