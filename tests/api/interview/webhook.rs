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
    let app = app_with(|s| s.services.interview.webhook.allow_private_urls = true).await;
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
    // The timestamped signature, computed as a receiver would.
    let ts = last.headers["x-webhook-timestamp"].to_str().unwrap();
    assert!(ts.parse::<i64>().is_ok(), "{ts}");
    let v2 = last.headers["x-webhook-signature-v2"].to_str().unwrap();
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(b"s3cret").unwrap();
    mac.update(format!("{ts}.").as_bytes());
    mac.update(body);
    assert_eq!(
        v2,
        format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
    );
    // Moved to another time (a replay with a fresh timestamp), it no longer verifies.
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(b"s3cret").unwrap();
    mac.update(format!("{}.", ts.parse::<i64>().unwrap() + 600).as_bytes());
    mac.update(body);
    assert_ne!(
        v2,
        format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
    );
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
async fn unsigned_without_a_secret() {
    let app = app_with(|s| s.services.interview.webhook.allow_private_urls = true).await;
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
    for h in [
        "x-webhook-signature",
        "x-webhook-signature-v2",
        "x-webhook-timestamp",
    ] {
        assert!(!calls[0].headers.contains_key(h), "{h}");
    }
}

async fn db(app: &crate::helpers::TestApp) -> sea_orm::DatabaseConnection {
    sea_orm::Database::connect(&app.settings.database.url)
        .await
        .expect("database")
}

/// The session's completion deliveries as stored.
async fn deliveries(
    app: &crate::helpers::TestApp,
    s: &Value,
) -> Vec<switchboard_entities::interview::webhook_delivery::Model> {
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
    use switchboard_entities::interview::webhook_delivery as d;
    let db = db(app).await;
    let session: uuid::Uuid = id(s).parse().unwrap();
    let rows = d::Entity::find()
        .filter(d::Column::SessionId.eq(session))
        .all(&db)
        .await
        .unwrap();
    db.close().await.ok();
    rows
}

async fn wait_delivery_status(
    app: &crate::helpers::TestApp,
    s: &Value,
    status: &str,
) -> switchboard_entities::interview::webhook_delivery::Model {
    for _ in 0..200 {
        if let Some(row) = deliveries(app, s).await.into_iter().next() {
            if row.status == status {
                return row;
            }
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("no delivery became {status}");
}

/// Private URLs NOT allowed (the default): an address that turns inward after creation
/// (here rewritten in the database, as a DNS change would) is refused at delivery.
#[actix_web::test]
async fn private_hosts_refused_at_delivery() {
    let app = app().await;
    assert!(!app.settings.services.interview.webhook.allow_private_urls);
    let hook = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(204))
        .mount(&hook)
        .await;
    let s = create(
        &app,
        json!({"webhook_url": "http://hooks.example.com/h", "max_questions": 1}),
    )
    .await;
    let inward = format!("http://localhost:{}/h", hook.address().port());
    {
        use sea_orm::sea_query::Expr;
        use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
        use switchboard_entities::interview::session;
        let db = db(&app).await;
        session::Entity::update_many()
            .col_expr(session::Column::WebhookUrl, Expr::value(inward))
            .filter(session::Column::Id.eq(id(&s).parse::<uuid::Uuid>().unwrap()))
            .exec(&db)
            .await
            .unwrap();
        db.close().await.ok();
    }
    start(&app, &s).await;
    answer(&app, &s, GOOD_ANSWER).await;
    let row = wait_delivery_status(&app, &s, "failed").await;
    let error = row.last_error.unwrap_or_default();
    assert!(error.contains("private"), "{error}");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(hook.received_requests().await.unwrap().is_empty());
}

/// A receiver that answers 302 to an internal address: the redirect is not followed.
/// (Private URLs are allowed here only so that the first, loopback hop can be called at
/// all; with them refused that hop itself is refused, as the test above shows.)
#[actix_web::test]
async fn redirects_are_not_followed() {
    let app = app_with(|s| s.services.interview.webhook.allow_private_urls = true).await;
    let target = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&target)
        .await;
    let hook = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(302)
                .insert_header("Location", format!("{}/internal", target.uri()).as_str()),
        )
        .mount(&hook)
        .await;
    let s = create(
        &app,
        json!({"webhook_url": format!("{}/h", hook.uri()), "max_questions": 1}),
    )
    .await;
    start(&app, &s).await;
    answer(&app, &s, GOOD_ANSWER).await;
    received(&hook, 1).await;
    let row = wait_delivery_status(&app, &s, "failed").await;
    assert_eq!(row.last_status, Some(302));
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(hook.received_requests().await.unwrap().len(), 1);
    assert!(
        target.received_requests().await.unwrap().is_empty(),
        "the redirect target was called"
    );
}

/// The delivery row is written in the transaction that completes the session: when it
/// cannot be written the completion does not happen either, and once it completes the row
/// is there before the worker has run.
#[actix_web::test]
async fn the_delivery_row_commits_with_the_completion() {
    use sea_orm::ConnectionTrait;
    let app = app_with(|s| s.services.interview.webhook.allow_private_urls = true).await;
    let hook = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(2)))
        .mount(&hook)
        .await;
    let s = create(
        &app,
        json!({"webhook_url": format!("{}/h", hook.uri()), "max_questions": 3}),
    )
    .await;
    start(&app, &s).await;
    let complete = format!("/api/v1/sessions/{}/complete", id(&s));
    // The deliveries table cannot be written (as a crash right after the session's commit
    // would leave it): the completion fails as a whole.
    let db = db(&app).await;
    db.execute_unprepared(
        "ALTER TABLE interview_webhook_deliveries RENAME TO interview_webhook_deliveries_off",
    )
    .await
    .unwrap();
    let res = post_key(&app, &complete, json!({})).await;
    assert!(res.status().is_server_error(), "{}", res.status());
    db.execute_unprepared(
        "ALTER TABLE interview_webhook_deliveries_off RENAME TO interview_webhook_deliveries",
    )
    .await
    .unwrap();
    db.close().await.ok();
    let v =
        crate::helpers::body(get_key(&app, &format!("/api/v1/sessions/{}", id(&s))).await).await;
    assert_eq!(
        v["status"], "in_progress",
        "no completion without its webhook row"
    );
    assert!(deliveries(&app, &s).await.is_empty());

    let res = post_key(&app, &complete, json!({})).await;
    assert_eq!(res.status(), 200);
    // Right after the answer, while the receiver is still holding the first attempt.
    let rows = deliveries(&app, &s).await;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].status, "pending");
    assert_eq!(rows[0].attempts, 0);
    let body: Value = serde_json::from_str(&rows[0].body).unwrap();
    assert_eq!(body["status"], "completed");
    assert_eq!(body["session_id"], s["id"]);
    wait_delivery_status(&app, &s, "delivered").await;
}
