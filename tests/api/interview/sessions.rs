use super::support::*;
use crate::helpers::{assert_operations_and_links_consistent, body};
use serde_json::json;

#[actix_web::test]
async fn create_needs_the_api_key() {
    let app = app().await;
    let res = app
        .client
        .post(url(&app, "/api/v1/sessions"))
        .json(&job(json!({})))
        .send()
        .await
        .unwrap();
    assert_error(res, 401, "UNAUTHORIZED").await;
    let res = app
        .client
        .post(url(&app, "/api/v1/sessions"))
        .header("X-API-Key", "wrong")
        .json(&job(json!({})))
        .send()
        .await
        .unwrap();
    assert_error(res, 401, "UNAUTHORIZED").await;
}

#[actix_web::test]
async fn create_returns_the_session_with_token_and_url() {
    let app = app().await;
    let s = create(&app, json!({})).await;
    assert_eq!(s["status"], "pending");
    assert_eq!(s["candidate_name"], "Ada Lovelace");
    assert_eq!(s["max_questions"], 3);
    assert_eq!(s["time_limit_minutes"], 30);
    assert_eq!(s["metadata"], json!({"source": "test"}));
    assert_eq!(s["remaining_seconds"], 1800);
    let token = s["session_token"].as_str().unwrap();
    assert!(token.len() >= 40, "unguessable token");
    assert!(s["interview_url"].as_str().unwrap().ends_with(token));
    assert!(s["created_at"].is_string() && s["expires_at"].is_string());

    // Defaults when bounds are not given.
    let res = post_key(
        &app,
        "/api/v1/sessions",
        json!({"candidate_name": "Bo", "job_title": "Cook"}),
    )
    .await;
    assert_eq!(res.status(), 201);
    let v = body(res).await;
    assert_eq!(v["max_questions"], 8);
    assert_eq!(v["time_limit_minutes"], 30);
}

#[actix_web::test]
async fn create_rejects_bad_input_clearly() {
    let app = app().await;
    for (extra, what) in [
        (json!({"candidate_name": ""}), "candidate_name"),
        (json!({"job_title": "  "}), "job_title"),
        (json!({"max_questions": 0}), "max_questions"),
        (json!({"max_questions": 51}), "max_questions"),
        (json!({"time_limit_minutes": 0}), "time_limit_minutes"),
        (json!({"time_limit_minutes": 241}), "time_limit_minutes"),
        (json!({"webhook_url": "ftp://example.com/x"}), "webhook_url"),
        // Not a URI as sent (RFC 3986 is ASCII): never stored as a rewritten URL.
        (
            json!({"webhook_url": "https://\u{cf}.example/h"}),
            "webhook_url",
        ),
        (
            json!({"webhook_url": "https://example.com/a b"}),
            "webhook_url",
        ),
        (json!({"candidate_phone": "12345"}), "candidate_phone"),
        (json!({"candidate_email": "nope"}), "candidate_email"),
        (json!({"send_sms": true}), "send_sms"),
        (json!({"metadata": [1, 2]}), "metadata"),
        (json!({"surprise": 1}), "surprise"),
        (json!({"max_questions": "ten"}), "expected i64"),
    ] {
        let res = post_key(&app, "/api/v1/sessions", job(extra)).await;
        let v = assert_error(res, 400, "INVALID_REQUEST").await;
        assert!(
            v["error"]["message"].as_str().unwrap().contains(what),
            "{what}: {v}"
        );
    }
    // Private webhook addresses are refused unless allowed in config.
    let res = post_key(
        &app,
        "/api/v1/sessions",
        job(json!({"webhook_url": "http://127.0.0.1:9/hook"})),
    )
    .await;
    assert_error(res, 400, "INVALID_REQUEST").await;
    // Malformed JSON and wrong content type stay in the envelope.
    let res = app
        .client
        .post(url(&app, "/api/v1/sessions"))
        .header("X-API-Key", API_KEY)
        .header("Content-Type", "application/json")
        .body("{oops")
        .send()
        .await
        .unwrap();
    assert_error(res, 400, "INVALID_REQUEST").await;
    let res = app
        .client
        .post(url(&app, "/api/v1/sessions"))
        .header("X-API-Key", API_KEY)
        .body("candidate_name=x")
        .send()
        .await
        .unwrap();
    assert_error(res, 415, "UNSUPPORTED_MEDIA_TYPE").await;
}

#[actix_web::test]
async fn get_by_token_id_and_user() {
    let app = app().await;
    let s = create(&app, json!({})).await;
    let token = s["session_token"].as_str().unwrap();

    let v = body(
        app.client
            .get(url(&app, &format!("/api/v1/sessions/token/{token}")))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(v["id"], s["id"]);
    assert_eq!(v["interview_url"], s["interview_url"]);
    let res = app
        .client
        .get(url(&app, "/api/v1/sessions/token/not-a-token"))
        .send()
        .await
        .unwrap();
    assert_error(res, 404, "NOT_FOUND").await;

    // By id: the API key or the session's own token.
    let path = format!("/api/v1/sessions/{}", id(&s));
    assert_eq!(get_key(&app, &path).await.status(), 200);
    let res = app
        .client
        .get(url(&app, &path))
        .header("X-Session-Token", token)
        .send()
        .await
        .unwrap();
    assert_eq!(body(res).await["status"], "pending");
    let res = app.client.get(url(&app, &path)).send().await.unwrap();
    assert_error(res, 401, "UNAUTHORIZED").await;
    let other = create(&app, json!({})).await;
    let res = app
        .client
        .get(url(&app, &path))
        .header("X-Session-Token", other["session_token"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_error(res, 401, "UNAUTHORIZED").await;
    let res = get_key(&app, &format!("/api/v1/sessions/{}", uuid::Uuid::new_v4())).await;
    assert_error(res, 404, "NOT_FOUND").await;
    let res = get_key(&app, "/api/v1/sessions/not-a-uuid").await;
    assert_error(res, 404, "NOT_FOUND").await;

    // By user, newest first, paginated.
    for _ in 0..3 {
        create(&app, json!({"user_id": "u-list"})).await;
        app.advance(chrono::Duration::seconds(1));
    }
    let v = body(get_key(&app, "/api/v1/sessions/user/u-list?limit=2&offset=0").await).await;
    assert_eq!(v["total"], 3);
    assert_eq!(v["sessions"].as_array().unwrap().len(), 2);
    let v2 = body(get_key(&app, "/api/v1/sessions/user/u-list?limit=2&offset=2").await).await;
    assert_eq!(v2["sessions"].as_array().unwrap().len(), 1);
    assert!(v["sessions"][0]["created_at"].as_str() > v["sessions"][1]["created_at"].as_str());
    // Page numbers read the same list; page and offset together are refused.
    let p2 = body(get_key(&app, "/api/v1/sessions/user/u-list?limit=2&page=2").await).await;
    assert_eq!(p2["sessions"], v2["sessions"]);
    assert_eq!(p2["offset"], 2);
    let res = get_key(&app, "/api/v1/sessions/user/u-list?page=2&offset=2").await;
    assert_error(res, 400, "INVALID_REQUEST").await;
    let res = get_key(&app, "/api/v1/sessions/user/u-list?page=0").await;
    assert_error(res, 400, "INVALID_REQUEST").await;
    let res = get_key(&app, "/api/v1/sessions/user/u-list?limit=0").await;
    assert_error(res, 400, "INVALID_REQUEST").await;
    let res = get_key(&app, "/api/v1/sessions/user/u-list?limit=abc").await;
    assert_error(res, 400, "INVALID_REQUEST").await;
    let res = app
        .client
        .get(url(&app, "/api/v1/sessions/user/u-list"))
        .send()
        .await
        .unwrap();
    assert_error(res, 401, "UNAUTHORIZED").await;
}

#[actix_web::test]
async fn delete_is_admin_only() {
    let app = app().await;
    let s = create(&app, json!({})).await;
    start(&app, &s).await;
    let path = url(&app, &format!("/api/v1/sessions/{}", id(&s)));
    let res = app
        .client
        .delete(&path)
        .header("X-API-Key", API_KEY)
        .send()
        .await
        .unwrap();
    assert_error(res, 403, "FORBIDDEN").await;
    let res = app
        .client
        .delete(&path)
        .header("X-Admin-Key", "wrong")
        .send()
        .await
        .unwrap();
    assert_error(res, 403, "FORBIDDEN").await;
    let res = app
        .client
        .delete(&path)
        .header("X-Admin-Key", ADMIN_KEY)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 204);
    assert!(res.text().await.unwrap().is_empty());
    assert_error(
        get_key(&app, &format!("/api/v1/sessions/{}", id(&s))).await,
        404,
        "NOT_FOUND",
    )
    .await;
    let res = app
        .client
        .delete(&path)
        .header("X-Admin-Key", ADMIN_KEY)
        .send()
        .await
        .unwrap();
    assert_error(res, 404, "NOT_FOUND").await;
}

#[actix_web::test]
async fn sms_sends_the_link() {
    let app = app().await;
    let s = create(
        &app,
        json!({"send_sms": true, "candidate_phone": "+4917667111638"}),
    )
    .await;
    assert_eq!(s["sms_sent"], true);
    let sms = app.outbox_for("+4917667111638");
    assert_eq!(sms.len(), 1);
    assert!(sms[0]["text"]
        .as_str()
        .unwrap()
        .contains(s["interview_url"].as_str().unwrap()));
    assert_eq!(sms[0]["service"], "interview");
}

#[actix_web::test]
async fn health_docs_and_framework_errors() {
    let app = app().await;
    let v = body(app.client.get(url(&app, "/health")).send().await.unwrap()).await;
    assert_eq!(v["status"], "healthy");
    assert_eq!(v["service"], "interview");
    assert!(v["version"].is_string() && v["timestamp"].is_string());
    let v = body(
        app.client
            .get(url(&app, "/api/v1/health"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(v["status"], "healthy");
    assert_eq!(v["checks"]["database"]["status"], "up");
    let doc = body(
        app.client
            .get(url(&app, "/api-docs/openapi.json"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert!(doc["paths"]["/api/v1/sessions/{session_id}/report/pdf"].is_object());
    // A new session links to every operation on it, and onboarding to its chat.
    assert_eq!(assert_operations_and_links_consistent(&doc), 12);
    let created = &doc["paths"]["/api/v1/sessions"]["post"]["responses"]["201"]["links"];
    assert_eq!(created["Start"]["operationId"], "start_session");
    assert_eq!(
        created["Start"]["parameters"]["session_id"],
        "$response.body#/id"
    );
    let res = app.client.get(url(&app, "/nope")).send().await.unwrap();
    assert_error(res, 404, "NOT_FOUND").await;
    let res = app
        .client
        .put(url(&app, "/api/v1/sessions"))
        .send()
        .await
        .unwrap();
    assert_error(res, 405, "METHOD_NOT_ALLOWED").await;
}

#[actix_web::test]
async fn answers_are_rate_limited_per_client_and_other_routes_share_the_default() {
    use switchboard::core::config::LimitSettings;
    let app = app_with(|s| {
        s.services.interview.rate_limits.answer = LimitSettings::new(2, 60);
        s.services.interview.rate_limits.default = LimitSettings::new(50, 60);
    })
    .await;
    let s = create(&app, json!({})).await;
    start(&app, &s).await;
    for _ in 0..2 {
        let res = answer(&app, &s, GOOD_ANSWER).await;
        assert_ne!(res.status(), 429);
        assert_eq!(res.headers()["x-ratelimit-limit"], "2");
    }
    let res = answer(&app, &s, GOOD_ANSWER).await;
    assert_eq!(res.headers()["x-ratelimit-remaining"], "0");
    let retry: i64 = res.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=61).contains(&retry), "retry-after {retry}");
    let v = assert_error(res, 429, "RATE_LIMITED").await;
    assert_eq!(v["error"]["details"]["retry_after"], retry);
    // A percent-encoded path is the same route and the same bucket.
    let res = post_key(
        &app,
        &format!("/api/v1/sessions/{}/m%65ssages", id(&s)),
        json!({"content": GOOD_ANSWER}),
    )
    .await;
    assert_error(res, 429, "RATE_LIMITED").await;

    // Reads count against the default, not against the answers.
    let res = get_key(&app, &format!("/api/v1/sessions/{}", id(&s))).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["x-ratelimit-limit"], "50");

    // The window moves with the (injected) clock.
    app.advance(chrono::Duration::seconds(61));
    let res = answer(&app, &s, GOOD_ANSWER).await;
    assert_ne!(res.status(), 429);
}
