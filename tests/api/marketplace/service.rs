//! What every marketplace answer shares: health, the envelope, version negotiation, limits.

use super::*;
use crate::helpers::phone;
use chrono::Duration;

#[actix_web::test]
async fn health_answers_and_unknown_paths_use_the_envelope() {
    let app = app().await;
    let res = get(&app, "/health", None).await;
    assert_eq!(res.status(), 200);
    assert_eq!(json_body(res).await["service"], "marketplace");
    let v = assert_err(get(&app, "/no-such-thing", None).await, 404, "not_found").await;
    assert!(v.get("details").is_none(), "no empty details: {v}");
    let res = req(&app, reqwest::Method::DELETE, "/auth/login")
        .send()
        .await
        .unwrap();
    assert_err(res, 405, "method_not_allowed").await;
}

#[actix_web::test]
async fn accept_names_the_version_and_another_one_is_refused() {
    let app = app().await;
    for accept in ["application/vnd.service.v1+json", "application/json", "*/*"] {
        let res = req(&app, reqwest::Method::GET, "/health")
            .header("Accept", accept)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "{accept}");
    }
    let res = req(&app, reqwest::Method::POST, "/auth/login")
        .header("Accept", "application/vnd.service.v2+json")
        .json(&json!({"phone": phone(), "password": "secret1"}))
        .send()
        .await
        .unwrap();
    let v = assert_err(res, 406, "not_acceptable").await;
    assert!(v["message"].as_str().unwrap().contains("version 1"), "{v}");
}

#[actix_web::test]
async fn authentication_requests_are_limited_per_address_with_retry_after() {
    let app = app_with(|s| s.services.marketplace.rate_limits.auth.limit = 5).await;
    let body = json!({"phone": phone(), "password": "wrong-password"});
    for _ in 0..5 {
        let res = post(&app, "/auth/login", body.clone()).await;
        assert_eq!(res.headers()["x-ratelimit-limit"], "5");
        assert_err(res, 401, "invalid_credentials").await;
    }
    // Every authentication endpoint counts in the same window.
    let res = post(&app, "/auth/forgot-password", json!({"phone": phone()})).await;
    assert!(res.headers().contains_key("retry-after"));
    let v = assert_err(res, 429, "rate_limit_exceeded").await;
    let retry = v["retryAfter"].as_i64().expect("retryAfter");
    assert!((1..=901).contains(&retry), "{v}");
    // Other requests have their own, general limit.
    assert_eq!(get(&app, "/health", None).await.status(), 200);
    app.advance(Duration::seconds(retry));
    assert_err(
        post(&app, "/auth/login", body).await,
        401,
        "invalid_credentials",
    )
    .await;
}

#[actix_web::test]
async fn general_requests_are_limited_per_caller() {
    let app = app_with(|s| s.services.marketplace.rate_limits.general.limit = 2).await;
    let user = signup(&app, &phone(), "secret1").await;
    let token = user["token"].as_str().unwrap();
    for _ in 0..2 {
        assert_eq!(get(&app, "/auth/me", Some(token)).await.status(), 200);
    }
    let v = assert_err(
        get(&app, "/auth/me", Some(token)).await,
        429,
        "rate_limit_exceeded",
    )
    .await;
    assert!(v["retryAfter"].as_i64().is_some(), "{v}");
    // Anonymous callers count apart from the authenticated one.
    assert_eq!(get(&app, "/health", None).await.status(), 200);
}

/// Asks for a password-reset code for `phone` from the address `from` (believed: the test
/// trusts loopback as its proxy).
async fn forgot_from(app: &TestApp, phone: &str, from: &str) -> reqwest::Response {
    req(app, reqwest::Method::POST, "/auth/forgot-password")
        .header("X-Forwarded-For", from)
        .json(&json!({ "phone": phone }))
        .send()
        .await
        .expect("request")
}

#[actix_web::test]
async fn a_stranger_spends_only_their_own_share_of_a_phones_codes() {
    let app = app_with(|s| {
        s.server.trusted_proxies = vec!["127.0.0.0/8".into()];
        // A proxy in front counts as exposed; this is a development machine.
        s.server.environment = "development".into();
        let l = &mut s.services.marketplace.rate_limits;
        l.auth.limit = 1000;
        l.otp_per_sender.limit = 2;
        l.otp_per_phone.limit = 4;
        // Codes back to back: the budgets are the subject here (codes.rs: the cooldown).
        s.services.marketplace.otp_cooldown_secs = 0;
    })
    .await;
    let p = phone();
    signup(&app, &p, "secret1").await;
    // The stranger spends their share and is refused...
    for _ in 0..2 {
        assert_ok(forgot_from(&app, &p, "198.51.100.7").await, 200).await;
    }
    let v = assert_err(
        forgot_from(&app, &p, "198.51.100.7").await,
        429,
        "rate_limit_exceeded",
    )
    .await;
    assert!(v["retryAfter"].as_i64().is_some(), "{v}");
    // ...while the owner, from their own address, still gets a code to reset with.
    assert_ok(forgot_from(&app, &p, "203.0.113.20").await, 200).await;
    // Many senders together stop at the phone's ceiling (4), however many addresses.
    assert_ok(forgot_from(&app, &p, "192.0.2.1").await, 200).await;
    assert_err(
        forgot_from(&app, &p, "192.0.2.2").await,
        429,
        "rate_limit_exceeded",
    )
    .await;
    // Another phone, and a phone without an account, count apart.
    assert_ok(forgot_from(&app, &phone(), "198.51.100.7").await, 200).await;
}
