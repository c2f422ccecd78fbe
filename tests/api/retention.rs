//! The recurring retention jobs: spent refresh tokens, old idempotency keys, old webhook
//! delivery attempts and old wrong-OTP records go; fresh rows stay.

use crate::helpers::{assert_error, handle, phone, TestApp};
use crate::messaging::{
    app_with, db, eventually, json_body, sms, subscribed_receiver, workspace, MessagingApp,
};
use chrono::Duration;
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
use serde_json::json;
use switchboard_entities::identity::{otp_failure, refresh_token};
use switchboard_entities::messaging::{delivery_attempt, idempotency_key};

async fn send_keyed(app: &TestApp, api_key: &str, idem: &str) -> reqwest::Response {
    app.client
        .post(app.m("/api/v1/messages/send"))
        .header("X-API-Key", api_key)
        .header("Idempotency-Key", idem)
        .json(&sms("+14155550123", "Hi"))
        .send()
        .await
        .expect("request")
}

async fn count_keys(app: &TestApp) -> u64 {
    let db = db(app).await;
    idempotency_key::Entity::find().count(&db).await.unwrap()
}

async fn count_attempts(app: &TestApp, webhook: &str) -> u64 {
    let db = db(app).await;
    delivery_attempt::Entity::find()
        .filter(delivery_attempt::Column::WebhookId.eq(uuid::Uuid::parse_str(webhook).unwrap()))
        .count(&db)
        .await
        .unwrap()
}

async fn count_otp_failures(app: &TestApp) -> u64 {
    let db = db(app).await;
    otp_failure::Entity::find().count(&db).await.unwrap()
}

/// Runs every service's purge now, as `switchboard jobs retry <id>` on each recurring job
/// would, and waits for the runs.
async fn purge_now(app: &TestApp) {
    use switchboard::core::jobs::{self, JobId, ListFilter, Retried};
    let db = db(app).await;
    for topic in [
        "identity.purge",
        "identity.retention",
        "messaging.retention",
    ] {
        let filter = ListFilter {
            topic: Some(topic.into()),
            status: None,
            limit: 1,
        };
        let rows = jobs::list(&db, &filter).await.unwrap();
        let row = rows.first().expect("the recurring job's row");
        let retried = jobs::retry(&db, JobId(row.id), app.now()).await.unwrap();
        // A run in progress (its worker moved in when the clock did) is waited for instead.
        assert!(
            matches!(
                retried,
                Retried::Queued | Retried::Refused(jobs::Status::Running)
            ),
            "{topic}: {retried:?}"
        );
    }
    db.close().await.ok();
    app.jobs.run_due().await.unwrap();
}

async fn refresh(app: &TestApp, token: &str) -> reqwest::Response {
    app.post("/auth/refresh", json!({"refresh_token": token}))
        .await
}

#[actix_web::test]
async fn old_rows_go_fresh_rows_stay_and_an_old_key_no_longer_replays() {
    let app = app_with(|_| {}).await;
    assert_eq!(app.settings.retention.refresh_tokens_days, 7);
    assert_eq!(app.settings.retention.delivery_attempts_days, 30);

    // A wrong OTP code is recorded for the phone's daily cap.
    let q = phone();
    app.post("/auth/otp/send", json!({"phone": q, "purpose": "signup"}))
        .await;
    let code = app.last_code(&q);
    let wrong = if code == "000000" { "111111" } else { "000000" };
    let res = app
        .post(
            "/auth/otp/verify",
            json!({"phone": q, "code": wrong, "purpose": "signup"}),
        )
        .await;
    assert_error(res, 400, "INVALID_OTP").await;
    assert_eq!(count_otp_failures(&app).await, 1);

    // Identity: r0 is rotated by a refresh; r1 is the live token of that session.
    let data = app.signup(&phone(), &handle(), "1234").await;
    let r0 = data["refresh_token"].as_str().unwrap().to_owned();
    let res = refresh(&app, &r0).await;
    assert_eq!(res.status(), 200);
    let r1 = json_body(res).await["data"]["refresh_token"]
        .as_str()
        .unwrap()
        .to_owned();

    // Messaging: an idempotency key and a webhook delivery attempt.
    let ws = workspace(&app, "100").await;
    let (_rx, hook) = subscribed_receiver(&app, &ws.key, &["message.sent"]).await;
    let first = send_keyed(&app, &ws.key, "order-1").await;
    assert_eq!(first.status(), 201);
    let again = send_keyed(&app, &ws.key, "order-1").await;
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    eventually("a delivery attempt", || async {
        (count_attempts(&app, &hook).await == 1).then_some(())
    })
    .await;

    // Nothing is old yet: a run removes nothing of it.
    purge_now(&app).await;
    assert_eq!(count_keys(&app).await, 1);
    assert_eq!(count_attempts(&app, &hook).await, 1);

    // 8 days on: the rotated token and the 24-hour key are past retention.
    app.advance(Duration::days(8));
    let fresh = send_keyed(&app, &ws.key, "order-2").await;
    assert_eq!(fresh.status(), 201);
    eventually("a second delivery attempt", || async {
        (count_attempts(&app, &hook).await == 2).then_some(())
    })
    .await;
    purge_now(&app).await;
    let db = db(&app).await;
    assert_eq!(count_otp_failures(&app).await, 0);
    let tokens = refresh_token::Entity::find().all(&db).await.unwrap();
    assert_eq!(tokens.len(), 1, "only the live token is left: {tokens:?}");
    assert!(tokens[0].rotated_at.is_none());
    let keys = idempotency_key::Entity::find().all(&db).await.unwrap();
    assert_eq!(keys.len(), 1);
    assert_eq!(keys[0].key, "order-2");
    assert_eq!(
        count_attempts(&app, &hook).await,
        2,
        "8-day-old attempts stay 30 days"
    );
    // The old key is gone: the same key and body is a new message now.
    let redo = send_keyed(&app, &ws.key, "order-1").await;
    assert_eq!(redo.status(), 201);
    assert!(redo.headers().get("idempotent-replayed").is_none());
    // The live token still works; the purged one is simply unknown.
    assert_error(refresh(&app, &r0).await, 401, "INVALID_REFRESH_TOKEN").await;
    assert_eq!(refresh(&app, &r1).await.status(), 200);

    // 31 days after the first attempt it goes; the later ones stay.
    eventually("three delivery attempts", || async {
        (count_attempts(&app, &hook).await == 3).then_some(())
    })
    .await;
    app.advance(Duration::days(23));
    purge_now(&app).await;
    assert_eq!(count_attempts(&app, &hook).await, 2);
}

#[actix_web::test]
async fn the_worker_runs_the_jobs_on_its_own() {
    let app = app_with(|s| s.retention.interval_secs = 1).await;
    let ws = workspace(&app, "100").await;
    assert_eq!(send_keyed(&app, &ws.key, "order-1").await.status(), 201);
    assert_eq!(count_keys(&app).await, 1);
    app.advance(Duration::hours(25));
    // No trigger: the scheduled run removes the key.
    eventually("the scheduled purge", || async {
        (count_keys(&app).await == 0).then_some(())
    })
    .await;
}
