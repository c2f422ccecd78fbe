use crate::helpers::*;
use serde_json::json;

#[actix_web::test]
async fn health_is_not_wrapped() {
    let app = spawn_app().await;
    let res = app.get("/health").await;
    assert_eq!(res.status(), 200);
    let v = body(res).await;
    assert_eq!(v["status"], "healthy");
    assert_eq!(v["version"], "1.0", "the interface version");
    assert!(v["timestamp"].is_string());
    assert!(v.get("success").is_none());
}

#[actix_web::test]
async fn unknown_routes_methods_and_bodies_get_the_envelope() {
    let app = spawn_app().await;
    assert_error(app.get("/nope").await, 404, "NOT_FOUND").await;
    let res = app
        .client
        .put(app.url("/auth/signin"))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_error(res, 405, "METHOD_NOT_ALLOWED").await;
    let res = app
        .client
        .post(app.url("/auth/signin"))
        .body("phone=1")
        .header("content-type", "text/plain")
        .send()
        .await
        .unwrap();
    assert_error(res, 415, "UNSUPPORTED_MEDIA_TYPE").await;
    let res = app
        .client
        .post(app.url("/auth/signin"))
        .header("content-type", "application/json")
        .body("[1,2")
        .send()
        .await
        .unwrap();
    assert_error(res, 400, "INVALID_REQUEST").await;
    let res = app
        .client
        .post(app.url("/auth/signin"))
        .header("content-type", "application/json")
        .body(vec![b' '; 3 * 1024 * 1024])
        .send()
        .await
        .unwrap();
    assert_error(res, 413, "PAYLOAD_TOO_LARGE").await;
}

#[actix_web::test]
async fn a_type_error_names_the_field_at_fault() {
    let app = spawn_app().await;
    let res = app
        .client
        .post(app.url("/auth/otp/send"))
        .json(&json!({"phone": 4917667111638_i64, "purpose": "signup"}))
        .send()
        .await
        .unwrap();
    let v = assert_error(res, 400, "INVALID_REQUEST").await;
    let message = v["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("invalid request body: phone: invalid type"),
        "{message}"
    );
}

#[actix_web::test]
async fn request_id_is_echoed_or_generated() {
    let app = spawn_app().await;
    let res = app
        .client
        .get(app.url("/users/handle/check?handle=abc"))
        .header("x-request-id", "abc-123")
        .send()
        .await
        .unwrap();
    assert_eq!(res.headers()["x-request-id"], "abc-123");
    let res = app.get("/users/handle/check?handle=abc").await;
    assert_eq!(res.headers()["x-request-id"].len(), 36);
}

#[actix_web::test]
async fn default_limit_applies_per_client_with_headers() {
    let app = spawn_app_with(|s| s.services.identity.rate_limits.default.limit = 3).await;
    for left in (0..3).rev() {
        let res = app.get("/users/@someone").await;
        assert_eq!(res.headers()["x-ratelimit-limit"], "3");
        assert_eq!(
            res.headers()["x-ratelimit-remaining"],
            left.to_string().as_str()
        );
        let reset: i64 = res.headers()["x-ratelimit-reset"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!(reset > chrono::Utc::now().timestamp());
    }
    let res = app.get("/users/@someone").await;
    assert!(res.headers().contains_key("retry-after"));
    let v = assert_error(res, 429, "RATE_LIMITED").await;
    assert!(v["error"]["details"]["retry_after"].as_i64().unwrap() >= 1);
}

#[actix_web::test]
async fn default_limit_counts_per_session_and_made_up_tokens_per_ip() {
    // Signing two accounts up takes 4 requests of the IP's default budget.
    let app = spawn_app_with(|s| s.services.identity.rate_limits.default.limit = 6).await;
    let a = app.signup(&phone(), &handle(), "1234").await;
    let b = app.signup(&phone(), &handle(), "1234").await;
    let (a, b) = (
        a["access_token"].as_str().unwrap().to_owned(),
        b["access_token"].as_str().unwrap().to_owned(),
    );
    // Two accounts behind one IP each have their own budget.
    for _ in 0..6 {
        assert_eq!(app.get_auth("/users/me", &a).await.status(), 200);
    }
    assert_error(app.get_auth("/users/me", &a).await, 429, "RATE_LIMITED").await;
    assert_eq!(app.get_auth("/users/me", &b).await.status(), 200);
    // A fresh made-up token per request does not earn a fresh budget: those share what is
    // left of the IP's (2 requests).
    for i in 0..2 {
        let res = app.get_auth("/users/me", &format!("made.up.{i}")).await;
        assert_eq!(res.status(), 401);
    }
    assert_error(
        app.get_auth("/users/me", "made.up.again").await,
        429,
        "RATE_LIMITED",
    )
    .await;
}

#[actix_web::test]
async fn openapi_and_swagger_ui_are_served() {
    let app = spawn_app().await;
    let res = app.get("/api-docs/openapi.json").await;
    assert_eq!(res.status(), 200);
    let doc = body(res).await;
    let paths = doc["paths"].as_object().unwrap();
    for p in [
        "/auth/otp/send",
        "/auth/signup",
        "/users/me",
        "/users/@{handle}",
        "/sessions/{id}",
        "/kyc/initiate",
    ] {
        assert!(paths.contains_key(p), "{p}");
    }
    assert!(doc["paths"]["/auth/signin"]["post"]["responses"]["429"].is_object());
    assert_operations_and_links_consistent(&doc);
    let res = app.get("/api-docs").await;
    assert_eq!(res.status(), 301);
    let res = app.get("/api-docs/").await;
    assert_eq!(res.status(), 200);
    assert!(res.text().await.unwrap().contains("swagger"));
}

#[actix_web::test]
async fn every_limited_response_carries_rate_limit_headers() {
    let app = spawn_app().await;
    let headers = [
        "x-ratelimit-limit",
        "x-ratelimit-remaining",
        "x-ratelimit-reset",
    ];
    for path in [
        "/no/such/route",
        "/users/me",
        "/users/handle/check?handle=abc",
    ] {
        let res = app.get(path).await;
        for h in headers {
            assert!(res.headers().contains_key(h), "{h} missing on {path}");
        }
    }
    // Probes and documents are never limited, so no limit is reported on them.
    for path in ["/health", "/api-docs/openapi.json"] {
        let res = app.get(path).await;
        assert_eq!(res.status(), 200);
        for h in headers {
            assert!(!res.headers().contains_key(h), "{h} on {path}");
        }
    }
}
