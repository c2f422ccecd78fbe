use super::support::*;
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{json, Value};
use sha2::Sha256;
use std::time::Duration;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// The id a receiver deduplicates on.
/// A receiver that answers `status` to the first `times` deliveries, then 200.
async fn refusing_then_accepting(status: u16, times: u64) -> MockServer {
    let hook = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(status))
        .up_to_n_times(times)
        .mount(&hook)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&hook)
        .await;
    hook
}

fn delivery_id(r: &wiremock::Request) -> String {
    r.headers
        .get("x-webhook-delivery-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

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
    // Server stamps then equal the test's own reading of the clock.
    app.clock.freeze();
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

    // Each retry waits its turn on the schedule (30 s, then 2 min, ± 10 %), on the server's
    // clock: the row says when, and moving the clock past it brings the attempt.
    for (failed, base) in [(1, 30), (2, 120)] {
        let row = wait_attempts(&app, &s, failed).await;
        assert_eq!(row.status.as_str(), "pending");
        assert_eq!(row.last_status, Some(503));
        let wait = row.next_attempt_at.unwrap() - app.now();
        let (lo, hi) = (base * 9 / 10, base * 11 / 10);
        assert!(
            (lo..=hi).contains(&wait.num_seconds()),
            "retry {failed} after {wait}"
        );
        // Not before it is due: a run of the due jobs leaves it alone.
        app.advance(wait - chrono::Duration::seconds(1));
        run_due_jobs(&app).await;
        assert_eq!(deliveries(&app, &s).await[0].attempts, failed);
        app.advance(chrono::Duration::seconds(1));
    }
    let row = wait_delivery_status(&app, &s, "delivered").await;
    let calls = hook.received_requests().await.unwrap();
    assert_eq!(calls.len(), 3, "two failures, then success");
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
    // Delivered is final: whatever the job queue does from now on, there is no fourth call.
    assert_eq!(row.status.as_str(), "delivered");
    assert_eq!(row.attempts, 3);
    assert!(calls.iter().all(|c| delivery_id(c) == row.id.to_string()));
    app.advance(chrono::Duration::days(7));
    run_due_jobs(&app).await;
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
    assert_eq!(
        delivery_id(&calls[0]),
        wait_delivery_status(&app, &s, "delivered")
            .await
            .id
            .to_string()
    );
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
            if row.status.as_str() == status {
                return row;
            }
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("no delivery became {status}");
}

/// The session's delivery once it has had `attempts` attempts.
async fn wait_attempts(
    app: &crate::helpers::TestApp,
    s: &Value,
    attempts: i32,
) -> switchboard_entities::interview::webhook_delivery::Model {
    for _ in 0..200 {
        if let Some(row) = deliveries(app, s).await.into_iter().next() {
            if row.attempts >= attempts {
                return row;
            }
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the delivery never had {attempts} attempts");
}

/// Returns once every job due now on the app's clock has run (here the delivery attempts),
/// whether this call or the app's worker took it.
async fn run_due_jobs(app: &crate::helpers::TestApp) {
    app.jobs.run_due().await.expect("jobs run");
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
    // Refused like any transport error: recorded, retried later, never sent.
    let row = wait_attempts(&app, &s, 1).await;
    assert_eq!(row.status.as_str(), "pending");
    let error = row.last_error.unwrap_or_default();
    assert!(error.contains("private"), "{error}");
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
    // The attempt is recorded once the 302 is in: it was not followed, only retried later.
    let row = wait_attempts(&app, &s, 1).await;
    assert_eq!(row.last_status, Some(302));
    assert_eq!(row.status.as_str(), "pending");
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
    assert_eq!(rows[0].status.as_str(), "pending");
    assert_eq!(rows[0].attempts, 0);
    let body: Value = serde_json::from_str(&rows[0].body).unwrap();
    assert_eq!(body["status"], "completed");
    assert_eq!(body["session_id"], s["id"]);
    wait_delivery_status(&app, &s, "delivered").await;
}

async fn create_hooked(app: &crate::helpers::TestApp, hook: &MockServer) -> Value {
    let s = create(
        app,
        json!({"webhook_url": format!("{}/h", hook.uri()), "max_questions": 1}),
    )
    .await;
    start(app, &s).await;
    answer(app, &s, GOOD_ANSWER).await;
    s
}

/// A 4xx is retried like any other failure (the receiver may be mid-deploy or misrouted);
/// the later success is recorded.
#[actix_web::test]
async fn a_4xx_is_retried_not_given_up() {
    let app = app_with(|s| s.services.interview.webhook.allow_private_urls = true).await;
    app.clock.freeze();
    let hook = refusing_then_accepting(400, 1).await;
    let s = create_hooked(&app, &hook).await;
    let row = wait_attempts(&app, &s, 1).await;
    assert_eq!(row.status.as_str(), "pending", "a 400 is not final");
    assert_eq!(row.last_status, Some(400));
    app.advance(row.next_attempt_at.unwrap() - app.now());
    let row = wait_delivery_status(&app, &s, "delivered").await;
    assert_eq!(row.attempts, 2);
    let calls = hook.received_requests().await.unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(delivery_id(&calls[0]), delivery_id(&calls[1]));
}

/// A receiver's Retry-After (capped by max_retry_after_secs) postpones the retry beyond
/// the schedule.
#[actix_web::test]
async fn retry_after_is_honoured() {
    let app = app_with(|s| s.services.interview.webhook.allow_private_urls = true).await;
    app.clock.freeze();
    let hook = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(429).insert_header("Retry-After", "3600"))
        .mount(&hook)
        .await;
    let s = create_hooked(&app, &hook).await;
    let row = wait_attempts(&app, &s, 1).await;
    assert_eq!(
        row.next_attempt_at.unwrap() - app.now(),
        chrono::Duration::seconds(3600)
    );
}

/// After max_attempts failures the row is `failed`, which is final: no job calls again.
#[actix_web::test]
async fn after_max_attempts_the_row_is_failed_and_no_more_calls_are_made() {
    let app = app_with(|s| {
        s.services.interview.webhook.allow_private_urls = true;
        s.services.interview.webhook.max_attempts = 3;
    })
    .await;
    app.clock.freeze();
    let hook = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500))
        .mount(&hook)
        .await;
    let s = create_hooked(&app, &hook).await;
    for n in 1..=2 {
        let row = wait_attempts(&app, &s, n).await;
        assert_eq!(row.status.as_str(), "pending");
        app.advance(row.next_attempt_at.unwrap() - app.now());
    }
    let row = wait_delivery_status(&app, &s, "failed").await;
    assert_eq!(row.attempts, 3);
    assert_eq!(row.last_status, Some(500));
    app.advance(chrono::Duration::days(30));
    run_due_jobs(&app).await;
    assert_eq!(hook.received_requests().await.unwrap().len(), 3);
    let after = deliveries(&app, &s).await.remove(0);
    assert_eq!((after.status.as_str(), after.attempts), ("failed", 3));
}

/// A delivery still pending when its process stops is delivered by the next process on the
/// same database, when due on that process's clock, with the same delivery id.
#[actix_web::test]
async fn a_pending_delivery_is_resumed_after_a_restart() {
    let first = app_with(|s| s.services.interview.webhook.allow_private_urls = true).await;
    let hook = refusing_then_accepting(503, 1).await;
    let s = create_hooked(&first, &hook).await;
    let row = wait_attempts(&first, &s, 1).await;
    assert_eq!(row.status.as_str(), "pending");
    first.stop().await;
    let db = first.settings.database.url.clone();
    let second = app_with(|st| {
        st.database.url = db.clone();
        st.services.interview.webhook.allow_private_urls = true;
    })
    .await;
    second.advance(chrono::Duration::hours(1));
    let row = wait_delivery_status(&second, &s, "delivered").await;
    assert_eq!(row.attempts, 2);
    // Only this delivery's calls: a pooled mock server may have served another test before.
    let calls = hook.received_requests().await.unwrap();
    let ids: Vec<String> = calls.iter().map(delivery_id).collect();
    let mine = ids.iter().filter(|id| **id == row.id.to_string()).count();
    assert_eq!(mine, 2, "one failed attempt, one delivered: {ids:?}");
}

/// Two nodes on the same database: a due delivery job is claimed by one of them, so the
/// receiver gets one call, not one per node.
#[actix_web::test]
async fn two_nodes_never_post_the_same_attempt() {
    let first = app_with(|s| s.services.interview.webhook.allow_private_urls = true).await;
    let db = first.settings.database.url.clone();
    let second = app_with(|st| {
        st.database.url = db.clone();
        st.services.interview.webhook.allow_private_urls = true;
    })
    .await;
    // Both nodes read the system clock: the row is due for both as soon as it is written.
    let hook = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_millis(300)))
        .mount(&hook)
        .await;
    let s = create_hooked(&first, &hook).await;
    let row = wait_delivery_status(&first, &s, "delivered").await;
    assert_eq!(row.attempts, 1);
    run_due_jobs(&first).await;
    run_due_jobs(&second).await;
    // Only this delivery's calls: a pooled mock server may have served another test before.
    let ids: Vec<String> = hook
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(delivery_id)
        .collect();
    let mine = ids.iter().filter(|id| **id == row.id.to_string()).count();
    assert_eq!(
        mine, 1,
        "one call for the delivery, not one per node: {ids:?}"
    );
}

/// The OpenAPI document tells receivers what they can rely on.
#[actix_web::test]
async fn the_delivery_guarantees_are_documented() {
    let app = app().await;
    let doc: Value = app
        .client
        .get(url(&app, "/api-docs/openapi.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let tags = doc["tags"].as_array().unwrap();
    let sessions = tags.iter().find(|t| t["name"] == "sessions").unwrap();
    let text = sessions["description"].as_str().unwrap_or_default();
    for needle in [
        "X-Webhook-Delivery-ID",
        "At least once",
        "30 s, 2 min, 8 min",
        "X-Webhook-Signature-V2",
    ] {
        assert!(text.contains(needle), "{needle} missing: {text}");
    }
}
