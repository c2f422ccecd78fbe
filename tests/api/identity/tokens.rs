use crate::helpers::*;
use base64::Engine;
use chrono::Duration;
use jsonwebtoken::{encode, Algorithm, EncodingKey, Header};
use serde_json::json;

async fn account(app: &TestApp) -> (String, serde_json::Value) {
    let p = phone();
    let data = app.signup(&p, &handle(), "1234").await;
    (p, data)
}

fn s(v: &serde_json::Value, k: &str) -> String {
    v[k].as_str().unwrap().to_owned()
}

#[actix_web::test]
async fn refresh_rotates_and_reuse_revokes_the_family() {
    let app = spawn_app().await;
    let (_, data) = account(&app).await;
    let r0 = s(&data, "refresh_token");
    let res = app
        .post("/auth/refresh", json!({"refresh_token": r0}))
        .await;
    assert_eq!(res.status(), 200);
    let v = body(res).await;
    let r1 = s(&v["data"], "refresh_token");
    let a1 = s(&v["data"], "access_token");
    assert_ne!(r0, r1);
    assert_eq!(v["data"]["expires_in"], 900);
    assert_eq!(app.get_auth("/users/me", &a1).await.status(), 200);
    // Reusing the rotated token revokes the family, the active token too.
    assert_error(
        app.post("/auth/refresh", json!({"refresh_token": r0}))
            .await,
        401,
        "INVALID_REFRESH_TOKEN",
    )
    .await;
    assert_error(
        app.post("/auth/refresh", json!({"refresh_token": r1}))
            .await,
        401,
        "INVALID_REFRESH_TOKEN",
    )
    .await;
    assert_error(app.get_auth("/users/me", &a1).await, 401, "INVALID_TOKEN").await;
}

#[actix_web::test]
async fn refresh_rejects_unknown_and_expired() {
    let app = spawn_app().await;
    let (_, data) = account(&app).await;
    assert_error(
        app.post("/auth/refresh", json!({"refresh_token": "garbage"}))
            .await,
        401,
        "INVALID_REFRESH_TOKEN",
    )
    .await;
    assert_error(
        app.post("/auth/refresh", json!({})).await,
        400,
        "INVALID_REQUEST",
    )
    .await;
    // Unused for 30 days, a refresh token has expired.
    app.advance(Duration::days(30) + Duration::seconds(1));
    assert_error(
        app.post(
            "/auth/refresh",
            json!({"refresh_token": s(&data, "refresh_token")}),
        )
        .await,
        401,
        "REFRESH_TOKEN_EXPIRED",
    )
    .await;
}

/// Refreshes a live token; the new (access, refresh) pair.
async fn refreshed(app: &TestApp, token: &str) -> (String, String) {
    let res = app
        .post("/auth/refresh", json!({"refresh_token": token}))
        .await;
    assert_eq!(res.status(), 200, "refresh of a live token");
    let v = body(res).await;
    (
        s(&v["data"], "access_token"),
        s(&v["data"], "refresh_token"),
    )
}

#[actix_web::test]
async fn each_refresh_token_lives_30_days_from_its_own_issue() {
    let app = spawn_app().await;
    let (_, data) = account(&app).await;
    // An active user refreshing every 29 days stays signed in well past day 30.
    let mut token = s(&data, "refresh_token");
    let mut access = String::new();
    for _ in 0..3 {
        app.advance(Duration::days(29));
        (access, token) = refreshed(&app, &token).await;
    }
    // Day 87: the session is still listed as active.
    let listed = body(app.get_auth("/sessions", &access).await).await;
    assert_eq!(listed["data"]["total"], 1, "{listed}");
    // The last token dies 30 days after its own issue.
    app.advance(Duration::days(30) + Duration::seconds(1));
    assert_error(
        app.post("/auth/refresh", json!({"refresh_token": token}))
            .await,
        401,
        "REFRESH_TOKEN_EXPIRED",
    )
    .await;
}

#[actix_web::test]
async fn an_absolute_session_lifetime_caps_rotation_when_configured() {
    let app = spawn_app_with(|s| s.auth.session_max_days = 45).await;
    let (_, data) = account(&app).await;
    app.advance(Duration::days(29));
    let (_, token) = refreshed(&app, &s(&data, "refresh_token")).await;
    // Rotated on day 29: its own 30 days would reach day 59, the session ends on day 45.
    app.advance(Duration::days(16) - Duration::seconds(1));
    let (_, token) = refreshed(&app, &token).await;
    app.advance(Duration::seconds(2));
    assert_error(
        app.post("/auth/refresh", json!({"refresh_token": token}))
            .await,
        401,
        "REFRESH_TOKEN_EXPIRED",
    )
    .await;
}

#[actix_web::test]
async fn access_token_expires_after_15_minutes() {
    let app = spawn_app().await;
    let (_, data) = account(&app).await;
    let a = s(&data, "access_token");
    app.advance(Duration::minutes(14));
    assert_eq!(app.get_auth("/users/me", &a).await.status(), 200);
    app.advance(Duration::minutes(2));
    assert_error(app.get_auth("/users/me", &a).await, 401, "TOKEN_EXPIRED").await;
}

#[actix_web::test]
async fn only_access_tokens_are_access_tokens() {
    let app = spawn_app().await;
    let (p, data) = account(&app).await;
    let sub = data["user"]["id"].as_str().unwrap();
    let now = chrono::Utc::now().timestamp();
    let secret = app.settings.auth.jwt_secret.as_bytes().to_vec();
    // The live session of the real access token: only the token type (or algorithm)
    // differs from a token the server would accept.
    let access = s(&data, "access_token");
    let claims: serde_json::Value = serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(access.split('.').nth(1).unwrap())
            .unwrap(),
    )
    .unwrap();
    let sid = claims["sid"].as_str().unwrap().to_owned();
    let payload = |typ: &str| json!({"sub": sub, "typ": typ, "iat": now, "exp": now + 600, "jti": "x", "sid": sid});
    let forged = |typ: &str, alg: Algorithm| {
        encode(
            &Header::new(alg),
            &payload(typ),
            &EncodingKey::from_secret(&secret),
        )
        .unwrap()
    };
    // The control: with the right type and algorithm such a token is accepted.
    let control = forged("access", Algorithm::HS256);
    assert_eq!(app.get_auth("/users/me", &control).await.status(), 200);
    let b64 = |v: serde_json::Value| {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string())
    };
    let alg_none = format!(
        "{}.{}.",
        b64(json!({"alg": "none", "typ": "JWT"})),
        b64(payload("access"))
    );
    let temp = app.temp_token(&phone(), "signup").await;
    let reset = app.temp_token(&p, "pin_reset").await;
    for bad in [
        s(&data, "refresh_token"),
        temp,
        reset,
        forged("refresh", Algorithm::HS256),
        forged("temp", Algorithm::HS256),
        forged("access", Algorithm::HS512),
        alg_none,
        "not.a.jwt".into(),
    ] {
        assert_error(app.get_auth("/users/me", &bad).await, 401, "INVALID_TOKEN").await;
    }
    assert_error(app.get("/users/me").await, 401, "INVALID_TOKEN").await;
}

#[actix_web::test]
async fn logout_revokes_one_session_and_logout_all_counts() {
    let app = spawn_app().await;
    let (p, first) = account(&app).await;
    let second = body(
        app.post("/auth/signin", json!({"phone": p, "pin": "1234"}))
            .await,
    )
    .await["data"]
        .clone();
    let third = body(
        app.post("/auth/signin", json!({"phone": p, "pin": "1234"}))
            .await,
    )
    .await["data"]
        .clone();
    let a1 = s(&first, "access_token");
    // Logout needs a bearer and the caller's own refresh token.
    assert_error(
        app.post(
            "/auth/logout",
            json!({"refresh_token": s(&first, "refresh_token")}),
        )
        .await,
        401,
        "INVALID_TOKEN",
    )
    .await;
    assert_error(
        app.post_auth("/auth/logout", &a1, json!({"refresh_token": "nope"}))
            .await,
        401,
        "INVALID_REFRESH_TOKEN",
    )
    .await;
    let res = app
        .post_auth(
            "/auth/logout",
            &a1,
            json!({"refresh_token": s(&second, "refresh_token")}),
        )
        .await;
    assert_eq!(res.status(), 200);
    assert!(body(res).await["data"]["message"].is_string());
    assert_error(
        app.post(
            "/auth/refresh",
            json!({"refresh_token": s(&second, "refresh_token")}),
        )
        .await,
        401,
        "INVALID_REFRESH_TOKEN",
    )
    .await;
    let res = app.post_auth("/auth/logout/all", &a1, json!({})).await;
    assert_eq!(res.status(), 200);
    let v = body(res).await;
    assert_eq!(v["data"]["sessions_revoked"], 2);
    assert_error(
        app.get_auth("/users/me", &s(&third, "access_token")).await,
        401,
        "INVALID_TOKEN",
    )
    .await;
}

#[actix_web::test]
async fn sessions_list_marks_current_masks_ip_and_revokes_own_only() {
    let app = spawn_app().await;
    let (p, first) = account(&app).await;
    let res = app
        .post(
            "/auth/signin",
            json!({"phone": p, "pin": "1234", "device_name": "Pixel 8", "platform": "android"}),
        )
        .await;
    let second = body(res).await["data"].clone();
    let a2 = s(&second, "access_token");
    let v = body(app.get_auth("/sessions", &a2).await).await;
    assert_eq!(v["data"]["total"], 2);
    let sessions = v["data"]["sessions"].as_array().unwrap();
    let current: Vec<_> = sessions.iter().filter(|s| s["current"] == true).collect();
    assert_eq!(current.len(), 1);
    assert_eq!(current[0]["device_name"], "Pixel 8");
    assert_eq!(current[0]["platform"], "android");
    assert_eq!(current[0]["ip_address"], "127.0.0.***");
    for k in ["id", "last_used_at", "created_at"] {
        assert!(current[0][k].is_string(), "{k}");
    }
    let other = sessions.iter().find(|s| s["current"] == false).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();

    // Another account cannot revoke it.
    let (_, stranger) = account(&app).await;
    let res = app
        .client
        .delete(app.url(&format!("/sessions/{other}")))
        .bearer_auth(s(&stranger, "access_token"))
        .send()
        .await
        .unwrap();
    assert_error(res, 403, "FORBIDDEN").await;
    let res = app
        .client
        .delete(app.url(&format!("/sessions/{}", uuid::Uuid::new_v4())))
        .bearer_auth(&a2)
        .send()
        .await
        .unwrap();
    assert_error(res, 404, "NOT_FOUND").await;
    let res = app
        .client
        .delete(app.url("/sessions/not-a-uuid"))
        .bearer_auth(&a2)
        .send()
        .await
        .unwrap();
    assert_error(res, 404, "NOT_FOUND").await;

    let res = app
        .client
        .delete(app.url(&format!("/sessions/{other}")))
        .bearer_auth(&a2)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_error(
        app.get_auth("/users/me", &s(&first, "access_token")).await,
        401,
        "INVALID_TOKEN",
    )
    .await;
    assert_eq!(
        body(app.get_auth("/sessions", &a2).await).await["data"]["total"],
        1
    );
}

#[actix_web::test]
async fn concurrent_refreshes_of_one_token_never_both_succeed() {
    let app = spawn_app().await;
    let (_, data) = account(&app).await;
    let body_json = json!({"refresh_token": s(&data, "refresh_token")});
    let results = futures_util::future::join_all(
        (0..4).map(|_| app.post("/auth/refresh", body_json.clone())),
    )
    .await;
    let ok = results.iter().filter(|r| r.status() == 200).count();
    // The conditional rotation lets exactly one through (PostgreSQL runs this too).
    assert_eq!(ok, 1, "{ok} refreshes succeeded with one token");
    // Whatever happened, the old token is spent.
    assert_error(
        app.post("/auth/refresh", body_json).await,
        401,
        "INVALID_REFRESH_TOKEN",
    )
    .await;
}
