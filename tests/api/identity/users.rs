use crate::helpers::*;
use chrono::Duration;
use serde_json::json;

fn token(v: &serde_json::Value) -> String {
    v["access_token"].as_str().unwrap().to_owned()
}

#[actix_web::test]
async fn me_patch_changes_only_sent_fields() {
    let app = spawn_app().await;
    let data = app.signup(&phone(), &handle(), "1234").await;
    let t = token(&data);
    let me = body(app.get_auth("/users/me", &t).await).await["data"].clone();
    for k in [
        "id",
        "phone",
        "phone_verified",
        "handle",
        "name",
        "avatar_url",
        "bio",
        "country",
        "language",
        "kyc_status",
        "created_at",
        "updated_at",
    ] {
        assert!(me.get(k).is_some(), "{k}");
    }
    let patch = |b: serde_json::Value| {
        app.client
            .patch(app.url("/users/me"))
            .bearer_auth(&t)
            .json(&b)
            .send()
    };
    let v = body(
        patch(json!({"bio": "Mechanic in Berlin", "language": "de"}))
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(v["data"]["bio"], "Mechanic in Berlin");
    assert_eq!(v["data"]["language"], "de");
    assert_eq!(v["data"]["name"], "Test User");
    let v = body(
        patch(json!({"avatar_url": "https://cdn.example.com/a.png"}))
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(v["data"]["avatar_url"], "https://cdn.example.com/a.png");
    assert_eq!(v["data"]["bio"], "Mechanic in Berlin");
    let v = body(patch(json!({"avatar_url": null})).await.unwrap()).await;
    assert!(v["data"]["avatar_url"].is_null());
    for bad in [
        json!({"language": "german"}),
        json!({"avatar_url": "javascript:alert(1)"}),
        json!({"name": ""}),
        json!({"bio": "x".repeat(501)}),
        json!({"phone": "+15555555555"}),
        json!({"name": 5}),
    ] {
        assert_error(patch(bad).await.unwrap(), 400, "INVALID_REQUEST").await;
    }
    // Nothing from the refused patches stuck.
    let me = body(app.get_auth("/users/me", &t).await).await["data"].clone();
    assert_eq!(me["name"], "Test User");
    assert_eq!(me["language"], "de");
}

#[actix_web::test]
async fn public_profile_hides_private_fields() {
    let app = spawn_app().await;
    let h = handle();
    app.signup(&phone(), &h, "1234").await;
    let res = app.get(&format!("/users/@{h}")).await;
    assert_eq!(res.status(), 200);
    let v = body(res).await["data"].clone();
    assert_eq!(v["handle"], h);
    for k in [
        "id",
        "name",
        "avatar_url",
        "bio",
        "kyc_status",
        "created_at",
    ] {
        assert!(v.get(k).is_some(), "{k}");
    }
    for k in ["phone", "country", "language"] {
        assert!(v.get(k).is_none(), "{k} leaked");
    }
    assert_error(app.get("/users/@nobody_here").await, 404, "NOT_FOUND").await;
}

#[actix_web::test]
async fn handle_check_reports_reason() {
    let app = spawn_app().await;
    let h = handle();
    app.signup(&phone(), &h, "1234").await;
    let v = body(app.get(&format!("/users/handle/check?handle={h}")).await).await;
    assert_eq!(
        v["data"],
        json!({"handle": h, "available": false, "reason": "taken"})
    );
    let v = body(app.get("/users/handle/check?handle=support").await).await;
    assert_eq!(v["data"]["reason"], "reserved");
    // Look-alikes (l/1, o/0) of a taken or reserved handle are not available either.
    app.signup(&phone(), "hello_world", "1234").await;
    let v = body(app.get("/users/handle/check?handle=he11o_w0r1d").await).await;
    assert_eq!(v["data"]["reason"], "taken");
    let v = body(app.get("/users/handle/check?handle=adm1n").await).await;
    assert_eq!(v["data"]["reason"], "reserved");
    let v = body(app.get("/users/handle/check?handle=fresh_name_42").await).await;
    assert_eq!(
        v["data"],
        json!({"handle": "fresh_name_42", "available": true})
    );
    assert_error(
        app.get("/users/handle/check?handle=x").await,
        400,
        "INVALID_HANDLE",
    )
    .await;
    assert_error(app.get("/users/handle/check").await, 400, "INVALID_REQUEST").await;
}

#[actix_web::test]
async fn handle_check_limited_to_30_per_minute() {
    let app = spawn_app().await;
    for _ in 0..30 {
        assert_eq!(
            app.get("/users/handle/check?handle=abc_def").await.status(),
            200
        );
    }
    let res = app.get("/users/handle/check?handle=abc_def").await;
    assert_eq!(res.headers()["x-ratelimit-limit"], "30");
    assert_error(res, 429, "RATE_LIMITED").await;
}

#[actix_web::test]
async fn handle_change_with_pin_and_cooldown() {
    let app = spawn_app().await;
    let old = handle();
    let ph = phone();
    let t = token(&app.signup(&ph, &old, "1234").await);
    let taken = handle();
    app.signup(&phone(), &taken, "1234").await;
    let change = |b: serde_json::Value| app.post_auth("/users/handle/change", &t, b);
    assert_error(
        change(json!({"new_handle": handle(), "pin": "9999"})).await,
        401,
        "INVALID_CREDENTIALS",
    )
    .await;
    assert_error(
        change(json!({"new_handle": "root", "pin": "1234"})).await,
        409,
        "HANDLE_RESERVED",
    )
    .await;
    assert_error(
        change(json!({"new_handle": taken, "pin": "1234"})).await,
        409,
        "HANDLE_TAKEN",
    )
    .await;
    assert_error(
        change(json!({"new_handle": "B@d", "pin": "1234"})).await,
        400,
        "INVALID_HANDLE",
    )
    .await;
    let new = handle();
    let res = change(json!({"new_handle": new, "pin": "1234"})).await;
    assert_eq!(res.status(), 200);
    let v = body(res).await["data"].clone();
    assert_eq!(v["old_handle"], old);
    assert_eq!(v["new_handle"], new);
    let next =
        chrono::DateTime::parse_from_rfc3339(v["next_change_available"].as_str().unwrap()).unwrap();
    let days = (next.with_timezone(&chrono::Utc) - chrono::Utc::now()).num_days();
    assert!((29..=30).contains(&days));
    assert_eq!(app.get(&format!("/users/@{new}")).await.status(), 200);
    // The old handle no longer names anyone.
    assert_error(app.get(&format!("/users/@{old}")).await, 404, "NOT_FOUND").await;
    let v = assert_error(
        change(json!({"new_handle": handle(), "pin": "1234"})).await,
        429,
        "HANDLE_COOLDOWN",
    )
    .await;
    assert!(v["error"]["details"]["next_change_available"].is_string());
    // Day 29: still cooling down (signed in afresh, the old access token has expired).
    app.advance(Duration::days(29));
    let t2 = signin_token(&app, &ph).await;
    assert_error(
        app.post_auth(
            "/users/handle/change",
            &t2,
            json!({"new_handle": handle(), "pin": "1234"}),
        )
        .await,
        429,
        "HANDLE_COOLDOWN",
    )
    .await;
    // Past 30 days the handle can change again.
    app.advance(Duration::days(1) + Duration::minutes(1));
    let t3 = signin_token(&app, &ph).await;
    let res = app
        .post_auth(
            "/users/handle/change",
            &t3,
            json!({"new_handle": handle(), "pin": "1234"}),
        )
        .await;
    assert_eq!(res.status(), 200);
}

async fn signin_token(app: &TestApp, phone: &str) -> String {
    let res = app
        .post("/auth/signin", json!({"phone": phone, "pin": "1234"}))
        .await;
    assert_eq!(res.status(), 200);
    token(&body(res).await["data"])
}

#[actix_web::test]
async fn delete_account_needs_pin_and_phrase_then_purges_after_30_days() {
    let app = spawn_app_with(|s| s.services.identity.purge_interval_secs = 1).await;
    let p = phone();
    let h = handle();
    let data = app.signup(&p, &h, "1234").await;
    let t = token(&data);
    let del = |b: serde_json::Value| {
        app.client
            .delete(app.url("/users/me"))
            .bearer_auth(&t)
            .json(&b)
            .send()
    };
    assert_error(
        del(json!({"pin": "1234", "confirmation": "delete my account"}))
            .await
            .unwrap(),
        400,
        "INVALID_REQUEST",
    )
    .await;
    assert_error(
        del(json!({"pin": "9999", "confirmation": "DELETE MY ACCOUNT"}))
            .await
            .unwrap(),
        401,
        "INVALID_CREDENTIALS",
    )
    .await;
    let res = del(json!({"pin": "1234", "confirmation": "DELETE MY ACCOUNT"}))
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let v = body(res).await;
    assert!(v["data"]["deleted_at"].is_string());
    assert!(v["data"]["message"].is_string());
    // Sessions end; the account is gone to the world, but nothing is freed yet.
    assert_error(app.get_auth("/users/me", &t).await, 401, "INVALID_TOKEN").await;
    assert_error(
        app.post(
            "/auth/refresh",
            json!({"refresh_token": data["refresh_token"]}),
        )
        .await,
        401,
        "INVALID_REFRESH_TOKEN",
    )
    .await;
    assert_error(app.get(&format!("/users/@{h}")).await, 404, "NOT_FOUND").await;
    assert_error(
        app.post("/auth/signin", json!({"phone": p, "pin": "1234"}))
            .await,
        404,
        "ACCOUNT_NOT_FOUND",
    )
    .await;
    assert_error(
        app.post("/auth/otp/send", json!({"phone": p, "purpose": "signup"}))
            .await,
        409,
        "PHONE_EXISTS",
    )
    .await;
    assert_eq!(
        body(app.get(&format!("/users/handle/check?handle={h}")).await).await["data"]["reason"],
        "taken"
    );

    app.advance(Duration::days(30) + Duration::minutes(1));
    let mut freed = false;
    for _ in 0..50 {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        let v = body(app.get(&format!("/users/handle/check?handle={h}")).await).await;
        if v["data"]["available"] == true {
            freed = true;
            break;
        }
    }
    assert!(freed, "hard deletion frees the handle");
    let res = app
        .post("/auth/otp/send", json!({"phone": p, "purpose": "signup"}))
        .await;
    assert_eq!(res.status(), 200);
}
