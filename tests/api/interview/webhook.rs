use super::support::*;
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{json, Value};
use sha2::Sha256;
use std::time::Duration;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

async fn received(server: &MockServer, n: usize) -> Vec<wiremock::Request> {
    for _ in 0..200 {
        let got = server.received_requests().await.unwrap_or_default();
        if got.len() >= n {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("expected {n} webhook calls");
}

#[actix_web::test]
async fn completion_is_posted_signed_and_retried() {
    let app = app_with(|s| s.webhooks.allow_private_urls = true).await;
    let hook = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/hook"))
        .respond_with(ResponseTemplate::new(503))
        .up_to_n_times(2)
        .mount(&hook)
        .await;
    Mock::given(method("POST"))
        .and(path("/hook"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&hook)
        .await;
    let res = app
        .client
        .post(url(&app, "/api/v1/sessions"))
        .header("X-API-Key", API_KEY)
        .header("X-Webhook-Secret", "s3cret")
        .json(&job(
            json!({"webhook_url": format!("{}/hook", hook.uri()), "max_questions": 1}),
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    let s: Value = res.json().await.unwrap();
    start(&app, &s).await;
    answer(&app, &s, GOOD_ANSWER).await;

    let calls = received(&hook, 3).await;
    assert_eq!(calls.len(), 3, "two failures, then success; no more");
    let last = &calls[2];
    let body = &last.body;
    let sig = last.headers["x-webhook-signature"].to_str().unwrap();
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(b"s3cret").unwrap();
    mac.update(body);
    assert_eq!(
        sig,
        format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
    );
    assert_eq!(calls[0].body, *body, "retries send the same body");
    let v: Value = serde_json::from_slice(body).unwrap();
    assert_eq!(v["event"], "interview.completed");
    assert_eq!(v["session_id"], s["id"]);
    assert_eq!(v["application_id"], "app-9");
    assert_eq!(v["metadata"], json!({"source": "test"}));
    assert!(v["report"]["overall_score"].is_number());
    assert!(v["report"]["recommendation"].is_string());
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(hook.received_requests().await.unwrap().len(), 3);
}

#[actix_web::test]
async fn unsigned_without_a_secret_and_private_hosts_refused_at_delivery() {
    let app = app_with(|s| s.webhooks.allow_private_urls = true).await;
    let hook = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(204))
        .mount(&hook)
        .await;
    let s = create(
        &app,
        json!({"webhook_url": format!("{}/h", hook.uri()), "max_questions": 1}),
    )
    .await;
    start(&app, &s).await;
    answer(&app, &s, GOOD_ANSWER).await;
    let calls = received(&hook, 1).await;
    assert!(!calls[0].headers.contains_key("x-webhook-signature"));
}
