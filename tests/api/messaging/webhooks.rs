use super::*;
use crate::helpers::*;
use serde_json::json;
use std::collections::BTreeSet;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

async fn receiver(status: u16) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/hook"))
        .respond_with(ResponseTemplate::new(status).set_body_string("thanks"))
        .mount(&server)
        .await;
    server
}

/// A receiver that answers `first` for the first `n` requests and 200 afterwards.
async fn flaky_receiver(first: ResponseTemplate, n: u64) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(first)
        .up_to_n_times(n)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_string("ok"))
        .with_priority(2)
        .mount(&server)
        .await;
    server
}

async fn received(server: &MockServer, n: usize) -> Vec<Request> {
    eventually(&format!("{n} webhook requests"), || async {
        let r = server.received_requests().await.unwrap();
        (r.len() >= n).then_some(r)
    })
    .await
}

fn header<'a>(r: &'a Request, name: &str) -> &'a str {
    r.headers.get(name).unwrap().to_str().unwrap()
}

fn keys(v: &serde_json::Value) -> BTreeSet<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

/// Creates a `message.sent` webhook at `rx`'s /hook and sends one SMS with
/// `text` to trigger it; the webhook's id.
async fn hook_and_one_sms(app: &TestApp, ws: &Ws, rx: &MockServer, text: &str) -> String {
    let (hook, _) = webhook(
        app,
        &ws.key,
        &format!("{}/hook", rx.uri()),
        &["message.sent"],
    )
    .await;
    app.post_key("/api/v1/messages/send", &ws.key, sms("+14155550123", text))
        .await;
    hook
}

/// An app whose workspace has one `message.sent` webhook at a receiver that
/// always answers 500, and one SMS sent to trigger it.
async fn one_event_for_a_failing_hook() -> (TestApp, Ws, String, MockServer) {
    let app = app_with(|s| s.services.messaging.sandbox_delivery_reports = false).await;
    let ws = workspace(&app, "10").await;
    let rx = receiver(500).await;
    let hook = hook_and_one_sms(&app, &ws, &rx, "Hi").await;
    (app, ws, hook, rx)
}

async fn wait_attempts(app: &TestApp, key: &str, hook: &str, n: usize) -> Vec<serde_json::Value> {
    eventually(&format!("{n} attempts"), || async {
        let a = attempts(app, key, hook).await;
        (a.len() >= n).then_some(a)
    })
    .await
}

/// The delivery rows of a webhook in the order the endpoint owes them (`seq`): what it has
/// yet to send and what it is done with, so a test reads "no further call" from the rows.
pub(super) async fn delivery_rows(
    app: &TestApp,
    hook: &str,
) -> Vec<switchboard_entities::messaging::webhook_delivery::Model> {
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
    use switchboard_entities::messaging::webhook_delivery;
    let hook_id: uuid::Uuid = hook.parse().unwrap();
    let db = db(app).await;
    let rows = webhook_delivery::Entity::find()
        .filter(webhook_delivery::Column::WebhookId.eq(hook_id))
        .order_by_asc(webhook_delivery::Column::Seq)
        .all(&db)
        .await
        .unwrap();
    db.close().await.ok();
    rows
}

/// Waits until every delivery of `hook` is finished and returns the rows.
pub(super) async fn settled_rows(
    app: &TestApp,
    hook: &str,
) -> Vec<switchboard_entities::messaging::webhook_delivery::Model> {
    eventually("deliveries settled", || async {
        let rows = delivery_rows(app, hook).await;
        rows.iter()
            .all(|r| r.status.as_str() != "pending")
            .then_some(rows)
    })
    .await
}

/// Waits until `n` deliveries of `hook` are finished; asserts each one succeeded.
async fn all_succeeded(app: &TestApp, hook: &str, n: usize) {
    let rows = eventually(&format!("{n} deliveries settled"), || async {
        let rows = settled_rows(app, hook).await;
        (rows.len() == n).then_some(rows)
    })
    .await;
    assert!(
        rows.iter().all(|r| r.status.as_str() == "succeeded"),
        "{rows:?}"
    );
}

/// How many requests reached a receiver, and how many distinct deliveries they carried.
fn distinct_deliveries(calls: &[Request]) -> (usize, usize) {
    let ids: BTreeSet<&str> = calls
        .iter()
        .map(|r| header(r, "x-service-delivery-id"))
        .collect();
    (calls.len(), ids.len())
}

fn at(a: &serde_json::Value) -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::parse_from_rfc3339(a["delivered_at"].as_str().unwrap())
        .unwrap()
        .with_timezone(&chrono::Utc)
}

async fn get_hook(app: &TestApp, key: &str, id: &str) -> serde_json::Value {
    let res = app.get_key(&format!("/api/v1/webhooks/{id}"), key).await;
    assert_eq!(res.status(), 200);
    json_body(res).await["data"]["webhook"].clone()
}

#[actix_web::test]
async fn deliveries_are_signed_and_carry_the_spec_fields() {
    let app = app().await;
    let ws = workspace(&app, "10").await;
    let rx = receiver(200).await;
    let (hook, secret) = webhook(
        &app,
        &ws.key,
        &format!("{}/hook", rx.uri()),
        &["message.sent", "message.delivered"],
    )
    .await;
    assert_eq!(secret.len(), 64);
    assert!(secret.bytes().all(|b| b.is_ascii_hexdigit()));
    let v = json_body(
        app.post_key("/api/v1/messages/send", &ws.key, sms("+14155550123", "Hi"))
            .await,
    )
    .await;
    let id = v["data"]["message_id"].as_str().unwrap();
    let reqs = received(&rx, 2).await;
    let mut events = Vec::new();
    for r in &reqs {
        assert_eq!(header(r, "content-type"), "application/json");
        let body: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(header(r, "x-service-event"), body["type"]);
        assert_eq!(header(r, "x-service-delivery-id"), body["id"]);
        assert_eq!(
            header(r, "x-service-signature"),
            receiver_signature(&secret, &r.body)
        );
        let ts = header(r, "x-service-timestamp");
        let mut signed = format!("{ts}.").into_bytes();
        signed.extend_from_slice(&r.body);
        assert_eq!(
            header(r, "x-service-signature-v2"),
            receiver_signature(&secret, &signed)
        );
        assert!(ts.parse::<i64>().unwrap() > 1_700_000_000);
        assert_eq!(
            keys(&body),
            ["created_at", "data", "id", "type"]
                .map(String::from)
                .into()
        );
        events.push(body);
    }
    // Sent before delivered: one endpoint receives in order.
    assert_eq!(events[0]["type"], "message.sent");
    assert_eq!(events[1]["type"], "message.delivered");
    let sent = &events[0]["data"];
    let common = [
        "channel",
        "error_code",
        "error_message",
        "message_id",
        "recipient",
        "status",
        "timestamp",
    ];
    let with = |own: &str| -> BTreeSet<String> {
        common.iter().chain([&own]).map(|k| k.to_string()).collect()
    };
    assert_eq!(keys(sent), with("provider_message_id"));
    super::carrier::assert_carrier_fields(sent, "sent", None);
    assert_eq!(sent["message_id"], id);
    assert_eq!(sent["channel"], "sms");
    assert_eq!(sent["recipient"], "+14155550123");
    // The sandbox's own delivery report is carrier-driven too.
    let delivered = &events[1]["data"];
    assert_eq!(keys(delivered), with("delivered_at"));
    super::carrier::assert_carrier_fields(delivered, "delivered", None);
    assert_eq!(delivered["message_id"], id);
    let records = wait_attempts(&app, &ws.key, &hook, 2).await;
    for r in &records {
        assert_eq!(r["response_status"], 200);
        assert_eq!(r["response_body"], "thanks");
        assert!(r["error"].is_null());
        assert!(r["delivered_at"].is_string());
        assert_eq!(r["attempt"], 1);
    }
    let h = eventually("last_triggered_at", || async {
        let h = get_hook(&app, &ws.key, &hook).await;
        h["last_triggered_at"].is_string().then_some(h)
    })
    .await;
    assert_eq!(h["failure_count"], 0);
}

#[actix_web::test]
async fn only_subscribed_events_reach_only_active_webhooks() {
    let app = app().await;
    let ws = workspace(&app, "10").await;
    let delivered_only = receiver(200).await;
    let inactive = receiver(200).await;
    let (delivered_hook, _) = webhook(
        &app,
        &ws.key,
        &format!("{}/hook", delivered_only.uri()),
        &["message.delivered"],
    )
    .await;
    let res = app
        .post_key(
            "/api/v1/webhooks",
            &ws.key,
            json!({"url": format!("{}/hook", inactive.uri()), "events": ["message.sent"], "is_active": false}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let inactive_hook = json_body(res).await["data"]["webhook"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // A webhook of another workspace hears nothing of this one.
    let other = workspace(&app, "1").await;
    let foreign = receiver(200).await;
    let (foreign_hook, _) = webhook(
        &app,
        &other.key,
        &format!("{}/hook", foreign.uri()),
        &["message.sent", "message.delivered"],
    )
    .await;
    let v = json_body(
        app.post_key("/api/v1/messages/send", &ws.key, sms("+14155550123", "Hi"))
            .await,
    )
    .await;
    wait_status(
        &app,
        &ws.key,
        v["data"]["message_id"].as_str().unwrap(),
        "delivered",
    )
    .await;
    let got = received(&delivered_only, 1).await;
    assert_eq!(header(&got[0], "x-service-event"), "message.delivered");
    // Every event of the message is a row by now (written with its status change): an
    // endpoint calls only for its rows, so these are all the calls there will be.
    let rows = settled_rows(&app, &delivered_hook).await;
    assert_eq!(rows.len(), 1);
    assert_eq!(
        (rows[0].status.as_str(), rows[0].attempts),
        ("succeeded", 1)
    );
    assert!(delivery_rows(&app, &inactive_hook).await.is_empty());
    assert!(delivery_rows(&app, &foreign_hook).await.is_empty());
    assert!(inactive.received_requests().await.unwrap().is_empty());
    assert!(foreign.received_requests().await.unwrap().is_empty());
}

#[actix_web::test]
async fn failed_deliveries_retry_with_backoff_under_one_delivery_id() {
    let app = app_with(|s| s.services.messaging.sandbox_delivery_reports = false).await;
    app.clock.freeze();
    let t0 = app.clock_now();
    let ws = workspace(&app, "10").await;
    let rx = flaky_receiver(ResponseTemplate::new(500).set_body_string("boom"), 2).await;
    let hook = hook_and_one_sms(&app, &ws, &rx, "Hi").await;
    let first = wait_attempts(&app, &ws.key, &hook, 1).await;
    assert_eq!(first[0]["response_status"], 500);
    assert_eq!(first[0]["response_body"], "boom");
    assert_eq!(first[0]["error"], "HTTP 500");
    assert_eq!(get_hook(&app, &ws.key, &hook).await["failure_count"], 1);
    // Not retried before its time (30 s ± 10 %), as stored.
    let row = &delivery_rows(&app, &hook).await[0];
    assert_eq!((row.status.as_str(), row.attempts), ("pending", 1));
    let wait = row.next_attempt_at - t0;
    assert!(wait >= chrono::Duration::seconds(27) && wait <= chrono::Duration::seconds(33));
    app.advance(chrono::Duration::seconds(34));
    let second = wait_attempts(&app, &ws.key, &hook, 2).await;
    // The clock stands still between moves: the retry came after this one.
    assert_eq!(at(&second[0]), t0 + chrono::Duration::seconds(34));
    assert_eq!(get_hook(&app, &ws.key, &hook).await["failure_count"], 2);
    app.advance(chrono::Duration::seconds(133)); // 120 s ± 10 %
    let all = wait_attempts(&app, &ws.key, &hook, 3).await;
    assert_eq!(all[0]["response_status"], 200);
    assert_eq!(all[0]["attempt"], 3);
    let ids: BTreeSet<_> = all
        .iter()
        .map(|a| a["delivery_id"].clone().to_string())
        .collect();
    assert_eq!(ids.len(), 1, "one delivery, three attempts");
    let reqs = rx.received_requests().await.unwrap();
    let header_ids: BTreeSet<_> = reqs
        .iter()
        .map(|r| header(r, "x-service-delivery-id").to_owned())
        .collect();
    assert_eq!(header_ids.len(), 1);
    let h = get_hook(&app, &ws.key, &hook).await;
    assert_eq!(h["failure_count"], 0);
    assert!(h["last_triggered_at"].is_string());
}

#[actix_web::test]
async fn retries_keep_the_whole_schedule_over_more_than_a_day() {
    let (app, ws, hook, _rx) = one_event_for_a_failing_hook().await;
    app.clock.freeze();
    wait_attempts(&app, &ws.key, &hook, 1).await;
    // config.toml: 30 s × 4ⁿ up to 6 h, ±10 % jitter, 10 attempts in all.
    let delays = [30, 120, 480, 1920, 7680, 21600, 21600, 21600, 21600];
    for (i, delay) in delays.into_iter().enumerate() {
        let attempts_so_far = i + 1;
        let last = at(&attempts(&app, &ws.key, &hook).await[0]);
        let row = &delivery_rows(&app, &hook).await[0];
        assert_eq!(row.attempts as usize, attempts_so_far);
        let wait = (row.next_attempt_at - last).num_milliseconds();
        assert!(
            wait >= delay * 900 && wait <= delay * 1100,
            "retry {attempts_so_far} is due {wait} ms after the last, not {delay} s ± 10 %"
        );
        app.advance(chrono::Duration::milliseconds(delay * 1110)); // past +10 %
        let all = wait_attempts(&app, &ws.key, &hook, attempts_so_far + 1).await;
        assert_eq!(
            at(&all[0]),
            app.clock_now(),
            "retried only once the clock moved"
        );
    }
    let all = attempts(&app, &ws.key, &hook).await;
    assert_eq!(all.len(), 10);
    assert!(at(&all[0]) - at(&all[9]) >= chrono::Duration::hours(24));
    // The tenth attempt was the last: the delivery is finished.
    let rows = settled_rows(&app, &hook).await;
    assert_eq!((rows[0].status.as_str(), rows[0].attempts), ("failed", 10));
}

#[actix_web::test]
async fn retry_after_is_honoured() {
    let app = app_with(|s| s.services.messaging.sandbox_delivery_reports = false).await;
    let ws = workspace(&app, "10").await;
    let rx = flaky_receiver(
        ResponseTemplate::new(503).insert_header("Retry-After", "3600"),
        1,
    )
    .await;
    app.clock.freeze();
    let hook = hook_and_one_sms(&app, &ws, &rx, "Hi").await;
    let first = wait_attempts(&app, &ws.key, &hook, 1).await;
    let row = &delivery_rows(&app, &hook).await[0];
    assert!(
        row.next_attempt_at - at(&first[0]) >= chrono::Duration::hours(1),
        "Retry-After is one hour"
    );
    app.advance(chrono::Duration::minutes(30));
    app.advance(chrono::Duration::minutes(31));
    let all = wait_attempts(&app, &ws.key, &hook, 2).await;
    assert_eq!(all[0]["response_status"], 200);
    assert_eq!(at(&all[0]), at(&first[0]) + chrono::Duration::minutes(61));
}

#[actix_web::test]
async fn ten_consecutive_failures_deactivate_and_reactivation_resets() {
    let (app, ws, hook, _rx) = one_event_for_a_failing_hook().await;
    for n in 1..=10 {
        wait_attempts(&app, &ws.key, &hook, n).await;
        app.advance(chrono::Duration::hours(7)); // beyond the longest delay (6 h + 10 %)
    }
    let h = eventually("deactivation", || async {
        let h = get_hook(&app, &ws.key, &hook).await;
        (h["is_active"] == false).then_some(h)
    })
    .await;
    assert_eq!(h["failure_count"], 10);
    let all = attempts(&app, &ws.key, &hook).await;
    assert_eq!(all.len(), 10);
    let first =
        chrono::DateTime::parse_from_rfc3339(all[9]["delivered_at"].as_str().unwrap()).unwrap();
    let last =
        chrono::DateTime::parse_from_rfc3339(all[0]["delivered_at"].as_str().unwrap()).unwrap();
    assert!(last - first >= chrono::Duration::hours(24));
    // Inactive: new events are not even written for it.
    let again = json_body(
        app.post_key(
            "/api/v1/messages/send",
            &ws.key,
            sms("+14155550123", "Again"),
        )
        .await,
    )
    .await;
    wait_status(
        &app,
        &ws.key,
        again["data"]["message_id"].as_str().unwrap(),
        "sent",
    )
    .await;
    let rows = delivery_rows(&app, &hook).await;
    assert_eq!(rows.len(), 1);
    assert_eq!((rows[0].status.as_str(), rows[0].attempts), ("failed", 10));
    // Back to active: the count starts afresh and deliveries resume.
    let res = app
        .client
        .patch(app.m(&format!("/api/v1/webhooks/{hook}")))
        .header("X-API-Key", &ws.key)
        .json(&json!({"is_active": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let h = json_body(res).await["data"]["webhook"].clone();
    assert_eq!(
        (h["is_active"].clone(), h["failure_count"].clone()),
        (json!(true), json!(0))
    );
    app.post_key(
        "/api/v1/messages/send",
        &ws.key,
        sms("+14155550123", "Third"),
    )
    .await;
    wait_attempts(&app, &ws.key, &hook, 11).await;
}

/// Answers 500 to bodies containing `marker` while `refuse` is set, 200 otherwise.
struct RefuseWhile {
    marker: String,
    refuse: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl wiremock::Respond for RefuseWhile {
    fn respond(&self, r: &Request) -> ResponseTemplate {
        let refused = self.refuse.load(std::sync::atomic::Ordering::SeqCst)
            && String::from_utf8_lossy(&r.body).contains(&self.marker);
        ResponseTemplate::new(if refused { 500 } else { 200 })
    }
}

async fn sent_and_delivered(app: &TestApp, ws: &Ws, to: &str) -> String {
    let v = json_body(
        app.post_key("/api/v1/messages/send", &ws.key, sms(to, "x"))
            .await,
    )
    .await;
    let id = v["data"]["message_id"].as_str().unwrap().to_owned();
    wait_status(app, &ws.key, &id, "delivered").await;
    id
}

fn event_of(r: &Request) -> (String, String) {
    let b: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
    (
        b["type"].as_str().unwrap().to_owned(),
        b["data"]["message_id"].as_str().unwrap().to_owned(),
    )
}

#[actix_web::test]
async fn a_refused_event_holds_back_only_the_later_events_of_its_own_message() {
    let app = app().await; // the sandbox reports delivery: message.sent, then message.delivered
    app.clock.freeze();
    let t0 = app.clock_now();
    let ws = workspace(&app, "10").await;
    let refuse = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let rx = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(RefuseWhile {
            marker: "+14155550001".into(),
            refuse: refuse.clone(),
        })
        .mount(&rx)
        .await;
    let (hook, _) = webhook(
        &app,
        &ws.key,
        &format!("{}/hook", rx.uri()),
        &["message.sent", "message.delivered"],
    )
    .await;
    let a = sent_and_delivered(&app, &ws, "+14155550001").await;
    let first = wait_attempts(&app, &ws.key, &hook, 1).await;
    assert_eq!(first[0]["response_status"], 500);
    // B's events arrive without the clock moving, while A's wait for A's retry.
    let b = sent_and_delivered(&app, &ws, "+14155550002").await;
    let reqs = received(&rx, 3).await;
    let b_events: Vec<_> = reqs.iter().map(event_of).filter(|e| e.1 == b).collect();
    assert_eq!(
        b_events,
        [
            ("message.sent".into(), b.clone()),
            ("message.delivered".into(), b.clone())
        ]
    );
    let rows = delivery_rows(&app, &hook).await;
    let row = |kind: &str, id: &str| {
        rows.iter()
            .find(|r| r.event_type == kind && r.order_key == format!("message:{id}"))
            .unwrap()
            .clone()
    };
    let a_sent = row("message.sent", &a);
    assert_eq!((a_sent.status.as_str(), a_sent.attempts), ("pending", 1));
    let wait = a_sent.next_attempt_at - t0;
    assert!(wait >= chrono::Duration::seconds(27) && wait <= chrono::Duration::seconds(33));
    let a_delivered = row("message.delivered", &a);
    assert_eq!(
        (a_delivered.status.as_str(), a_delivered.attempts),
        ("pending", 0),
        "A's delivered waits for A's sent"
    );
    // A is retried on schedule, then A's delivered follows it.
    refuse.store(false, std::sync::atomic::Ordering::SeqCst);
    app.advance(chrono::Duration::seconds(34));
    let rows = settled_rows(&app, &hook).await;
    assert!(
        rows.iter().all(|r| r.status.as_str() == "succeeded"),
        "{rows:?}"
    );
    let a_events: Vec<_> = rx
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(event_of)
        .filter(|e| e.1 == a)
        .map(|e| e.0)
        .collect();
    assert_eq!(
        a_events,
        ["message.sent", "message.sent", "message.delivered"],
        "A's sent is refused once, retried, and only then comes A's delivered"
    );
    let records = attempts(&app, &ws.key, &hook).await;
    let stamps = |delivery: uuid::Uuid| -> Vec<_> {
        let mut s: Vec<_> = records
            .iter()
            .filter(|r| r["delivery_id"] == delivery.to_string())
            .map(at)
            .collect();
        s.sort();
        s
    };
    let later = t0 + chrono::Duration::seconds(34);
    assert_eq!(stamps(a_sent.id), [t0, later]);
    assert_eq!(stamps(a_delivered.id), [later]);
    assert_eq!(stamps(row("message.sent", &b).id), [t0]);
    assert_eq!(stamps(row("message.delivered", &b).id), [t0]);
}

#[actix_web::test]
async fn a_receiver_refusing_everything_pauses_the_endpoint_and_is_deactivated_after_a_day() {
    let app = app_with(|s| s.services.messaging.sandbox_delivery_reports = false).await;
    app.clock.freeze();
    let t0 = app.clock_now();
    let ws = workspace(&app, "10").await;
    let rx = receiver(500).await;
    let hook = hook_and_one_sms(&app, &ws, &rx, "Hi").await;
    for to in ["+14155550124", "+14155550125"] {
        app.post_key("/api/v1/messages/send", &ws.key, sms(to, "more"))
            .await;
    }
    // Two deliveries fail at once (one refusal may be about one event); then the receiver
    // looks down and the endpoint waits as one delivery would after as many failures.
    wait_attempts(&app, &ws.key, &hook, 2).await;
    for n in 3..=10 {
        app.advance(chrono::Duration::hours(7)); // beyond the longest delay (6 h + 10 %)
        wait_attempts(&app, &ws.key, &hook, n).await;
    }
    let h = eventually("deactivation", || async {
        let h = get_hook(&app, &ws.key, &hook).await;
        (h["is_active"] == false).then_some(h)
    })
    .await;
    assert_eq!(h["failure_count"], 10);
    // Finished rows are final: no further attempt can come.
    let rows = settled_rows(&app, &hook).await;
    assert_eq!(rows.len(), 3);
    assert_eq!(rows.iter().map(|r| r.attempts).sum::<i32>(), 10);
    let mut per_move = std::collections::BTreeMap::new();
    for a in attempts(&app, &ws.key, &hook).await {
        *per_move.entry(at(&a)).or_insert(0) += 1;
    }
    let counts: Vec<i32> = per_move.values().copied().collect();
    assert_eq!(counts, [2, 1, 1, 1, 1, 1, 1, 1, 1], "{per_move:?}");
    assert_eq!(*per_move.keys().next().unwrap(), t0);
    assert!(*per_move.keys().last().unwrap() - t0 >= chrono::Duration::hours(24));
}

#[actix_web::test]
async fn credit_low_once_per_crossing_and_depleted_at_zero() {
    let app = app().await;
    let ws = workspace_with(&app, "3", Some("2"), None).await;
    let rx = receiver(200).await;
    let (hook, _) = webhook(
        &app,
        &ws.key,
        &format!("{}/hook", rx.uri()),
        &["credit.low", "credit.depleted"],
    )
    .await;
    for _ in 0..3 {
        let res = app
            .post_key("/api/v1/messages/send", &ws.key, sms("+14155550123", "x"))
            .await;
        assert_eq!(res.status(), 201);
    }
    let reqs = received(&rx, 2).await;
    let bodies: Vec<serde_json::Value> = reqs
        .iter()
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect();
    assert_eq!(bodies[0]["type"], "credit.low");
    assert_eq!(
        bodies[0]["data"],
        json!({"workspace_id": ws.id, "balance": 1, "threshold": 2})
    );
    assert_eq!(bodies[1]["type"], "credit.depleted");
    assert_eq!(bodies[1]["data"], json!({"balance": 0}));
    // The events are rows of the sends' transactions: these are all there will be.
    let rows = settled_rows(&app, &hook).await;
    assert_eq!(rows.len(), 2);
    assert_eq!(attempts(&app, &ws.key, &hook).await.len(), 2);
}

#[actix_web::test]
async fn webhook_crud_is_scoped_to_the_workspace() {
    let app = app().await;
    let ws = workspace(&app, "1").await;
    let other = workspace(&app, "1").await;
    let res = app
        .post_key(
            "/api/v1/webhooks",
            &ws.key,
            json!({"url": "http://127.0.0.1:9/a", "events": ["message.sent", "message.sent", "credit.low"]}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let v = json_body(res).await;
    let w = &v["data"]["webhook"];
    assert_eq!(w["events"], json!(["message.sent", "credit.low"]));
    assert_eq!(w["is_active"], true);
    assert!(w["created_at"].is_string());
    assert!(v["data"]["warning"]
        .as_str()
        .unwrap()
        .contains("not shown again"));
    assert!(w.get("secret").is_none() && w.get("secret_hash").is_none());
    let id = w["id"].as_str().unwrap();

    let list = json_body(app.get_key("/api/v1/webhooks", &ws.key).await).await;
    assert_eq!(list["data"]["webhooks"].as_array().unwrap().len(), 1);
    assert!(list["data"]["webhooks"][0].get("secret").is_none());
    let theirs = json_body(app.get_key("/api/v1/webhooks", &other.key).await).await;
    assert!(theirs["data"]["webhooks"].as_array().unwrap().is_empty());

    let patch = |key: &str, body: serde_json::Value| {
        app.client
            .patch(app.m(&format!("/api/v1/webhooks/{id}")))
            .header("X-API-Key", key.to_owned())
            .json(&body)
            .send()
    };
    let res = patch(
        &ws.key,
        json!({"url": "http://127.0.0.1:9/b", "events": ["message.failed"]}),
    )
    .await
    .unwrap();
    assert_eq!(res.status(), 200);
    let w = json_body(res).await["data"]["webhook"].clone();
    assert_eq!(w["url"], "http://127.0.0.1:9/b");
    assert_eq!(w["events"], json!(["message.failed"]));
    assert_err(
        patch(&ws.key, json!({"events": []})).await.unwrap(),
        400,
        "validation_error",
    )
    .await;
    assert_err(
        patch(&ws.key, json!({"events": ["message.bounced"]}))
            .await
            .unwrap(),
        400,
        "validation_error",
    )
    .await;
    assert_err(
        patch(&ws.key, json!({"url": "ftp://x.y"})).await.unwrap(),
        400,
        "validation_error",
    )
    .await;
    assert_err(
        patch(&ws.key, json!({"secret": "x"})).await.unwrap(),
        400,
        "validation_error",
    )
    .await;
    assert_err(
        patch(&other.key, json!({"is_active": false}))
            .await
            .unwrap(),
        404,
        "not_found",
    )
    .await;
    assert_err(
        app.get_key(&format!("/api/v1/webhooks/{id}"), &other.key)
            .await,
        404,
        "not_found",
    )
    .await;
    assert_err(
        app.get_key(&format!("/api/v1/webhooks/{id}/deliveries"), &other.key)
            .await,
        404,
        "not_found",
    )
    .await;
    let delete = |key: &str| {
        app.client
            .delete(app.m(&format!("/api/v1/webhooks/{id}")))
            .header("X-API-Key", key.to_owned())
            .send()
    };
    assert_err(delete(&other.key).await.unwrap(), 404, "not_found").await;
    let res = delete(&ws.key).await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(json_body(res).await["data"]["deleted"], true);
    assert_err(
        app.get_key(&format!("/api/v1/webhooks/{id}"), &ws.key)
            .await,
        404,
        "not_found",
    )
    .await;
    assert_err(delete(&ws.key).await.unwrap(), 404, "not_found").await;

    for bad in [
        json!({"url": "not a url", "events": ["message.sent"]}),
        json!({"url": "http://127.0.0.1:9/a", "events": []}),
        json!({"url": "http://127.0.0.1:9/a", "events": ["nope"]}),
        json!({"url": "http://127.0.0.1:9/a"}),
        json!({"events": ["message.sent"]}),
    ] {
        assert_err(
            app.post_key("/api/v1/webhooks", &ws.key, bad).await,
            400,
            "validation_error",
        )
        .await;
    }
}

#[actix_web::test]
async fn private_and_loopback_urls_are_refused_by_default() {
    let app = app_with(|s| s.services.messaging.webhooks.allow_private_urls = false).await;
    let ws = workspace(&app, "1").await;
    for url in [
        "http://127.0.0.1:8080/hook",
        "http://localhost/hook",
        "http://10.0.0.5/hook",
        "http://192.168.1.10/hook",
        "http://169.254.169.254/latest",
        "http://[::1]/hook",
    ] {
        let res = app
            .post_key(
                "/api/v1/webhooks",
                &ws.key,
                json!({"url": url, "events": ["message.sent"]}),
            )
            .await;
        let v = assert_err(res, 400, "validation_error").await;
        assert!(
            v["message"].as_str().unwrap().contains("private"),
            "{url}: {v}"
        );
    }
}

#[actix_web::test]
async fn moving_a_webhook_to_a_private_url_is_refused_and_changes_nothing() {
    let app = app_with(|s| s.services.messaging.webhooks.allow_private_urls = false).await;
    let ws = workspace(&app, "1").await;
    // A public address literal: accepted without a DNS lookup.
    let public = "http://93.184.216.34/hook";
    let res = app
        .post_key(
            "/api/v1/webhooks",
            &ws.key,
            json!({"url": public, "events": ["message.sent"]}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let id = json_body(res).await["data"]["webhook"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    for url in ["http://10.0.0.5/hook", "http://localhost:8080/hook"] {
        let res = app
            .client
            .patch(app.m(&format!("/api/v1/webhooks/{id}")))
            .header("X-API-Key", ws.key.clone())
            .json(&json!({"url": url, "events": ["message.failed"]}))
            .send()
            .await
            .unwrap();
        let v = assert_err(res, 400, "validation_error").await;
        assert!(
            v["message"].as_str().unwrap().contains("private"),
            "{url}: {v}"
        );
    }
    let list = json_body(app.get_key("/api/v1/webhooks", &ws.key).await).await;
    let stored = &list["data"]["webhooks"][0];
    assert_eq!(
        stored["url"], public,
        "the refused PATCH left the URL alone"
    );
    assert_eq!(stored["events"], json!(["message.sent"]), "and the events");
}

#[actix_web::test]
async fn delivery_history_has_a_default_size_and_truncates_bodies() {
    let app = app_with(|s| s.services.messaging.sandbox_delivery_reports = false).await;
    let ws = workspace(&app, "100").await;
    let rx = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_string("x".repeat(5000)))
        .mount(&rx)
        .await;
    let (hook, _) = webhook(
        &app,
        &ws.key,
        &format!("{}/hook", rx.uri()),
        &["message.sent"],
    )
    .await;
    let recipients: Vec<_> = (0..55)
        .map(|i| json!({"to": format!("+1415555{i:04}")}))
        .collect();
    let res = app
        .post_key(
            "/api/v1/messages/bulk",
            &ws.key,
            json!({"channel": "sms", "content": {"text": "x"}, "recipients": recipients}),
        )
        .await;
    assert_eq!(res.status(), 201);
    wait_attempts(&app, &ws.key, &hook, 55).await;
    let res = app
        .get_key(&format!("/api/v1/webhooks/{hook}/deliveries"), &ws.key)
        .await;
    let v = json_body(res).await;
    let list = v["data"]["deliveries"].as_array().unwrap();
    assert_eq!(list.len(), 50);
    assert_eq!(
        list[0]["response_body"].as_str().unwrap().chars().count(),
        1000
    );
    assert_eq!(list[0]["event_type"], "message.sent");
    let res = app
        .get_key(
            &format!("/api/v1/webhooks/{hook}/deliveries?limit=5"),
            &ws.key,
        )
        .await;
    assert_eq!(
        json_body(res).await["data"]["deliveries"]
            .as_array()
            .unwrap()
            .len(),
        5
    );
    for bad in ["limit=0", "limit=abc", "limit=100000"] {
        let res = app
            .get_key(
                &format!("/api/v1/webhooks/{hook}/deliveries?{bad}"),
                &ws.key,
            )
            .await;
        assert_err(res, 400, "validation_error").await;
    }
    let res = app
        .get_key(
            &format!("/api/v1/webhooks/{}/deliveries", uuid::Uuid::new_v4()),
            &ws.key,
        )
        .await;
    assert_err(res, 404, "not_found").await;
}

#[actix_web::test]
async fn pending_work_resumes_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let mut settings = Settings::default();
    settings.database.url = fresh_database_url(dir.path()).await;
    settings.database.max_connections = 8;
    settings.outbox.path = dir.path().join("outbox.jsonl").display().to_string();
    settings.services.identity.enabled = false;
    settings.services.interview.enabled = false;
    settings.services.messaging.bind = "127.0.0.1:0".into();
    settings.services.messaging.sandbox_delivery_reports = false;
    test_settings(&mut settings);
    let clock = switchboard::core::clock::ManualClock::new();

    let receiver = flaky_receiver(ResponseTemplate::new(500), 1).await;
    // The first run's SMS carrier answers too slowly to finish before the stop.
    let slow_carrier = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(201)
                .set_body_json(json!({"sid": "SMslow"}))
                .set_delay(std::time::Duration::from_secs(30)),
        )
        .mount(&slow_carrier)
        .await;
    let mut first_settings = settings.clone();
    first_settings.providers.sms.provider = "twilio".into();
    first_settings.providers.sms.base_url = slow_carrier.uri();
    first_settings.providers.sms.account_sid = "AC1".into();

    let db = sea_orm::Database::connect(&settings.database.url)
        .await
        .unwrap();
    let first = Detached::start(first_settings, clock.clone());
    let ws = create_workspace(
        &db,
        chrono::Utc::now(),
        10.0,
        NewWorkspace {
            name: "Restart Co".into(),
            credits: "10".into(),
            low_credit_threshold: Some("0".into()),
            phone_number: Some("+15550009999".into()),
            sender_name: None,
        },
    )
    .await
    .unwrap();
    let key = ws.api_key;
    let client = crate::helpers::http_client();
    let res = client
        .post(format!("{}/api/v1/webhooks", first.base))
        .header("X-API-Key", &key)
        .json(&json!({"url": format!("{}/hook", receiver.uri()), "events": ["message.received"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    let hook = json_body(res).await["data"]["webhook"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // An inbound message produces a delivery that fails once and waits for its retry.
    let params = [
        ("MessageSid", "SMin1"),
        ("From", "+4915112345678"),
        ("To", "+15550009999"),
        ("Body", "hi"),
    ];
    let sig = carrier_signature(
        "carrier-token",
        "https://sb.example.com/carrier/inbound",
        &params,
    );
    let res = client
        .post(format!("{}/carrier/inbound", first.base))
        .header("X-Carrier-Signature", sig)
        .form(&params)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let attempts_url = |base: &str| format!("{base}/api/v1/webhooks/{hook}/deliveries");
    eventually("first attempt", || async {
        let v: serde_json::Value = client
            .get(attempts_url(&first.base))
            .header("X-API-Key", &key)
            .send()
            .await
            .ok()?
            .json()
            .await
            .ok()?;
        (v["data"]["deliveries"].as_array()?.len() == 1).then_some(())
    })
    .await;
    // A message accepted by the API but not yet accepted by the carrier.
    let res = client
        .post(format!("{}/api/v1/messages/send", first.base))
        .header("X-API-Key", &key)
        .json(&sms("+14155550777", "survives"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    let msg_id = json_body(res).await["data"]["message_id"]
        .as_str()
        .unwrap()
        .to_owned();
    eventually("carrier called", || async {
        (!slow_carrier.received_requests().await?.is_empty()).then_some(())
    })
    .await;
    first.stop();

    // Second run on the same database, sandbox carrier, once the first run's claim on the
    // message ([services.messaging] claim_secs) and its job's lease have lapsed.
    clock.advance(chrono::Duration::seconds(
        settings.services.messaging.claim_secs as i64 + 10,
    ));
    let second = Detached::start(settings.clone(), clock.clone());
    let v = eventually("retried delivery", || async {
        let v: serde_json::Value = client
            .get(attempts_url(&second.base))
            .header("X-API-Key", &key)
            .send()
            .await
            .ok()?
            .json()
            .await
            .ok()?;
        (v["data"]["deliveries"].as_array()?.len() == 2).then_some(v)
    })
    .await;
    let d = v["data"]["deliveries"].as_array().unwrap();
    assert_eq!(d[0]["response_status"], 200);
    assert_eq!(d[0]["delivery_id"], d[1]["delivery_id"]);
    let m = eventually("queued message sent", || async {
        let v: serde_json::Value = client
            .get(format!("{}/api/v1/messages/{msg_id}", second.base))
            .header("X-API-Key", &key)
            .send()
            .await
            .ok()?
            .json()
            .await
            .ok()?;
        (v["data"]["status"] == "sent").then_some(v)
    })
    .await;
    assert!(m["data"]["provider_message_id"]
        .as_str()
        .unwrap()
        .starts_with("SM"));
    let outbox = std::fs::read_to_string(dir.path().join("outbox.jsonl")).unwrap();
    assert!(outbox.contains("survives"));
    second.stop();
    db.close().await.ok();
}

#[actix_web::test]
async fn a_slow_receiver_times_out_and_counts_as_a_failure() {
    let app = app_with(|s| {
        s.services.messaging.sandbox_delivery_reports = false;
        s.services.messaging.webhooks.timeout_secs = 1;
    })
    .await;
    let ws = workspace(&app, "10").await;
    let rx = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_delay(std::time::Duration::from_secs(5)))
        .mount(&rx)
        .await;
    let hook = hook_and_one_sms(&app, &ws, &rx, "x").await;
    let a = wait_attempts(&app, &ws.key, &hook, 1).await;
    assert!(a[0]["response_status"].is_null());
    assert_eq!(a[0]["error"], "timed out after 1 s");
    assert_eq!(get_hook(&app, &ws.key, &hook).await["failure_count"], 1);
}

#[actix_web::test]
async fn credit_low_fires_again_after_a_top_up_and_a_new_crossing() {
    let app = app().await;
    let ws = workspace_with(&app, "2", Some("2"), None).await;
    let rx = receiver(200).await;
    let (hook, _) = webhook(
        &app,
        &ws.key,
        &format!("{}/hook", rx.uri()),
        &["credit.low"],
    )
    .await;
    app.post_key("/api/v1/messages/send", &ws.key, sms("+14155550123", "x"))
        .await;
    received(&rx, 1).await;
    let db = sea_orm::Database::connect(&app.settings.database.url)
        .await
        .unwrap();
    let balance = switchboard::services::messaging::add_credits(&db, app.clock_now(), ws.id, "5")
        .await
        .unwrap();
    assert_eq!(balance, 600);
    db.close().await.ok();
    for _ in 0..5 {
        app.post_key("/api/v1/messages/send", &ws.key, sms("+14155550123", "x"))
            .await;
    }
    let reqs = received(&rx, 2).await;
    let second: serde_json::Value = serde_json::from_slice(&reqs[1].body).unwrap();
    assert_eq!(second["data"]["balance"], json!(1));
    let rows = settled_rows(&app, &hook).await;
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| r.attempts == 1));
}

#[actix_web::test]
async fn a_pending_retry_of_a_webhook_set_inactive_is_skipped() {
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
    use switchboard_entities::messaging::webhook_delivery;
    let app = app_with(|s| s.services.messaging.sandbox_delivery_reports = false).await;
    let ws = workspace(&app, "10").await;
    let rx = flaky_receiver(ResponseTemplate::new(500), 1).await;
    let hook = hook_and_one_sms(&app, &ws, &rx, "Hi").await;
    let first = wait_attempts(&app, &ws.key, &hook, 1).await;
    assert_eq!(first[0]["response_status"], 500);
    let set_active = |active: bool| {
        app.client
            .patch(app.m(&format!("/api/v1/webhooks/{hook}")))
            .header("X-API-Key", &ws.key)
            .json(&json!({ "is_active": active }))
            .send()
    };
    let res = set_active(false).await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(json_body(res).await["data"]["webhook"]["is_active"], false);
    // Past the retry time (30 s ± 10 %): the endpoint reaches the delivery and skips it.
    app.advance(chrono::Duration::seconds(34));
    let hook_id: uuid::Uuid = hook.parse().unwrap();
    let db = db(&app).await;
    eventually("delivery skipped", || async {
        let rows = webhook_delivery::Entity::find()
            .filter(webhook_delivery::Column::WebhookId.eq(hook_id))
            .all(&db)
            .await
            .unwrap();
        (rows.len() == 1 && rows[0].status.as_str() == "skipped").then_some(())
    })
    .await;
    assert_eq!(rx.received_requests().await.unwrap().len(), 1);
    assert_eq!(attempts(&app, &ws.key, &hook).await.len(), 1);
    // Re-activation does not bring it back (docs/decisions.md): skipped is final, and only
    // pending rows are ever sent.
    assert_eq!(set_active(true).await.unwrap().status(), 200);
    let rows = delivery_rows(&app, &hook).await;
    assert_eq!((rows[0].status.as_str(), rows[0].attempts), ("skipped", 1));
    db.close().await.ok();
}

#[actix_web::test]
async fn the_api_document_tells_receivers_what_they_can_rely_on() {
    let app = app().await;
    let doc: serde_json::Value = app
        .client
        .get(app.m("/api-docs/openapi.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let tag = doc["tags"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "webhooks")
        .unwrap();
    let text = tag["description"].as_str().unwrap();
    for promise in [
        "At least once",
        "X-Service-Delivery-ID",
        "Order is kept per message",
        "30 s, 2 min, 8 min",
        "deactivate the webhook",
    ] {
        assert!(text.contains(promise), "{promise}: {text}");
    }
}

#[actix_web::test]
async fn deliveries_pending_at_the_upgrade_get_their_message_or_event_key() {
    use sea_orm::sea_query::{Alias, Query};
    use sea_orm::{ConnectionTrait, EntityTrait};
    use switchboard_entities::messaging::webhook_delivery;
    use switchboard_migration::{Migrator, MigratorTrait};
    let dir = tempfile::tempdir().unwrap();
    let db = sea_orm::Database::connect(crate::helpers::empty_database_url(dir.path()).await)
        .await
        .unwrap();
    // The schema as it was before the ordering key.
    Migrator::up(&db, Some(3)).await.unwrap();
    let message = uuid::Uuid::new_v4();
    let rows = [
        (
            "message.delivered",
            json!({"data": {"message_id": message}}),
            "pending",
        ),
        ("credit.low", json!({"data": {"balance": 1}}), "pending"),
        (
            "message.sent",
            json!({"data": {"message_id": message}}),
            "succeeded",
        ),
    ];
    let now = chrono::Utc::now();
    let mut ids = Vec::new();
    for (i, (kind, payload, status)) in rows.iter().enumerate() {
        let id = uuid::Uuid::new_v4();
        ids.push(id);
        let insert = Query::insert()
            .into_table(Alias::new("messaging_webhook_deliveries"))
            .columns(
                [
                    "id",
                    "webhook_id",
                    "workspace_id",
                    "seq",
                    "event_type",
                    "payload",
                    "status",
                    "attempts",
                    "next_attempt_at",
                    "created_at",
                ]
                .map(Alias::new),
            )
            .values_panic([
                id.into(),
                uuid::Uuid::new_v4().into(),
                uuid::Uuid::new_v4().into(),
                (i as i64).into(),
                (*kind).into(),
                payload.to_string().into(),
                (*status).into(),
                0i32.into(),
                now.into(),
                now.into(),
            ])
            .to_owned();
        db.execute(&insert).await.unwrap();
    }
    Migrator::up(&db, None).await.unwrap();
    let key = |id: uuid::Uuid| {
        let db = &db;
        async move {
            webhook_delivery::Entity::find_by_id(id)
                .one(db)
                .await
                .unwrap()
                .unwrap()
                .order_key
        }
    };
    assert_eq!(key(ids[0]).await, format!("message:{message}"));
    assert_eq!(key(ids[1]).await, "event:credit.low");
    assert_eq!(
        key(ids[2]).await,
        "",
        "finished rows are never ordered again"
    );
    db.close().await.ok();
}

#[actix_web::test]
async fn a_workspace_has_at_most_the_configured_number_of_webhooks() {
    let app = app().await;
    let ws = workspace(&app, "1").await;
    let other = workspace(&app, "1").await;
    let cap = app.settings.services.messaging.max_webhooks_per_workspace;
    assert_eq!(cap, 20, "the default");
    let body = json!({"url": "http://127.0.0.1:9/hook", "events": ["message.sent"]});
    let mut ids = Vec::new();
    for _ in 0..cap {
        let res = app
            .post_key("/api/v1/webhooks", &ws.key, body.clone())
            .await;
        assert_eq!(res.status(), 201);
        ids.push(
            json_body(res).await["data"]["webhook"]["id"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    let res = app
        .post_key("/api/v1/webhooks", &ws.key, body.clone())
        .await;
    let v = assert_err(res, 400, "validation_error").await;
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("at most 20 webhooks"),
        "{v}"
    );
    let list = json_body(app.get_key("/api/v1/webhooks", &ws.key).await).await;
    assert_eq!(list["data"]["webhooks"].as_array().unwrap().len(), 20);
    // The cap is per workspace.
    let res = app
        .post_key("/api/v1/webhooks", &other.key, body.clone())
        .await;
    assert_eq!(res.status(), 201);
    // After a delete there is room for one more, and only one.
    let res = app
        .client
        .delete(app.m(&format!("/api/v1/webhooks/{}", ids[0])))
        .header("X-API-Key", &ws.key)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let res = app
        .post_key("/api/v1/webhooks", &ws.key, body.clone())
        .await;
    assert_eq!(res.status(), 201);
    let res = app.post_key("/api/v1/webhooks", &ws.key, body).await;
    assert_err(res, 400, "validation_error").await;
}

/// Two nodes on one database both run an actor for the same webhook (the second node's
/// sweeper revives it while the first is still delivering): each delivery is claimed by one
/// of them, so the receiver gets every delivery id exactly once.
#[actix_web::test]
async fn two_nodes_deliver_each_event_once() {
    let fast_sweep = |s: &mut switchboard::settings::Settings| {
        s.services.messaging.webhooks.sweep_interval_secs = 1;
    };
    let a = app_with(fast_sweep).await;
    let db = a.settings.database.url.clone();
    let b = app_with(|s| {
        fast_sweep(s);
        s.database.url = db;
    })
    .await;
    let ws = workspace(&a, "20").await;
    let rx = wiremock::MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .respond_with(
            wiremock::ResponseTemplate::new(200).set_delay(std::time::Duration::from_millis(250)),
        )
        .mount(&rx)
        .await;
    let (hook, _) = webhook(
        &a,
        &ws.key,
        &format!("{}/hook", rx.uri()),
        &["message.delivered"],
    )
    .await;
    for i in 0..8 {
        let res = a
            .post_key(
                "/api/v1/messages/send",
                &ws.key,
                sms(&format!("+1415555010{i}"), "x"),
            )
            .await;
        assert_eq!(res.status(), 201);
    }
    // Both nodes' actors are at work for about two seconds (8 deliveries of 250 ms).
    all_succeeded(&a, &hook, 8).await;
    let calls = rx.received_requests().await.unwrap();
    assert_eq!(
        distinct_deliveries(&calls),
        (8, 8),
        "eight distinct deliveries, each delivered once, not once per node"
    );
    drop(b);
}

/// Endpoint actors running on `app`, as its health reports them.
async fn endpoints_running(app: &TestApp) -> u64 {
    let res = reqwest::get(format!("{}/health", app.messaging))
        .await
        .unwrap();
    json_body(res).await["details"]["webhook_endpoints_running"]
        .as_u64()
        .expect("webhook_endpoints_running")
}

/// A node's settings on `redis`, on the database of `first` (else a fresh one).
fn on_cluster(
    redis: &crate::cluster::Redis,
    first: Option<&TestApp>,
) -> impl FnOnce(&mut switchboard::settings::Settings) {
    let url = redis.url.clone();
    let db = first.map(|a| a.settings.database.url.clone());
    move |s| {
        s.cluster.redis_url = url;
        // Each node checks what it holds every second.
        s.cluster.lease_secs = 3;
        if let Some(db) = db {
            s.database.url = db;
        }
    }
}

/// A workspace with a `message.sent` webhook to a receiver answering 200; its id.
async fn sent_hook(app: &TestApp) -> (Ws, MockServer, String) {
    let ws = workspace(app, "30").await;
    let rx = receiver(200).await;
    let (hook, _) = webhook(
        app,
        &ws.key,
        &format!("{}/hook", rx.uri()),
        &["message.sent"],
    )
    .await;
    (ws, rx, hook)
}

/// Three nodes over one database and one Redis: the webhook's actor runs on one of them,
/// whichever node wrote the delivery, so the receiver gets every event once and each
/// message's events in order (sent before delivered, however the nodes interleave).
#[actix_web::test]
async fn on_a_cluster_one_node_runs_each_endpoint() {
    let redis = crate::cluster::Redis::start();
    let a = app_with(on_cluster(&redis, None)).await;
    let b = app_with(on_cluster(&redis, Some(&a))).await;
    let c = app_with(on_cluster(&redis, Some(&a))).await;
    let ws = workspace(&a, "30").await;
    let rx = receiver(200).await;
    let (hook, _) = webhook(
        &a,
        &ws.key,
        &format!("{}/hook", rx.uri()),
        &["message.sent", "message.delivered"],
    )
    .await;
    let nodes = [&a, &b, &c];
    for i in 0..12 {
        let node = nodes[i % 3];
        let to = format!("+1415555{:04}", 100 + i);
        let res = node
            .post_key("/api/v1/messages/send", &ws.key, sms(&to, "x"))
            .await;
        assert_eq!(res.status(), 201);
    }
    all_succeeded(&a, &hook, 24).await;
    let calls = received(&rx, 24).await;
    assert_eq!(distinct_deliveries(&calls), (24, 24), "each once");
    let mut per_message: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for r in &calls {
        let body: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
        let id = body["data"]["message_id"].as_str().unwrap().to_owned();
        per_message
            .entry(id)
            .or_default()
            .push(body["type"].as_str().unwrap().to_owned());
    }
    assert_eq!(per_message.len(), 12, "{per_message:?}");
    for (id, events) in &per_message {
        assert_eq!(
            events,
            &["message.sent", "message.delivered"],
            "message {id}"
        );
    }
    let mut running = 0;
    for node in nodes {
        running += endpoints_running(node).await;
    }
    assert_eq!(
        running, 1,
        "one actor for the endpoint in the whole cluster"
    );
}

/// An endpoint whose node left the cluster (its lease still good for a day) is taken over
/// by the next delivery written: delivered at once, and the node that ran it retires its
/// actor.
#[actix_web::test]
async fn an_endpoint_whose_node_left_the_cluster_is_taken_over_by_the_next_delivery() {
    use crate::cluster::{hand_leases_to, owners, until};
    let redis = crate::cluster::Redis::start();
    let a = app_with(on_cluster(&redis, None)).await;
    let b = app_with(on_cluster(&redis, Some(&a))).await;
    let (ws, rx, hook) = sent_hook(&a).await;
    let res = a
        .post_key("/api/v1/messages/send", &ws.key, sms("+14155550100", "one"))
        .await;
    assert_eq!(res.status(), 201);
    received(&rx, 1).await;
    assert_eq!(endpoints_running(&a).await + endpoints_running(&b).await, 1);

    hand_leases_to(&a, "webhook.endpoint", "node-gone").await;
    until("the node running the endpoint retires it", async || {
        endpoints_running(&a).await + endpoints_running(&b).await == 0
    })
    .await;
    let sent_at = std::time::Instant::now();
    let res = b
        .post_key("/api/v1/messages/send", &ws.key, sms("+14155550101", "two"))
        .await;
    assert_eq!(res.status(), 201);
    let calls = received(&rx, 2).await;
    assert_eq!(calls.len(), 2);
    // At once: a delivery that first waited for the gone node's answer would take the
    // whole forward timeout.
    let took = sent_at.elapsed();
    let forward = std::time::Duration::from_millis(b.settings.cluster.forward_timeout_ms);
    assert!(
        took < forward,
        "delivered after {took:?}, forward timeout {forward:?}"
    );
    let owner = owners(&a, "webhook.endpoint").await;
    assert_eq!(owner.len(), 1);
    assert_ne!(owner[0], "node-gone", "taken over");
    all_succeeded(&a, &hook, 2).await;
}

/// A process killed mid-attempt leaves that attempt's lease in the delivery row. The same
/// node, restarted, posts it again at once; an attempt another node holds is waited out.
#[actix_web::test]
async fn an_attempt_cut_off_by_a_kill_is_taken_back_at_once_by_the_same_node() {
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
    use switchboard_entities::messaging::webhook_delivery;
    for (holder, taken_back) in [("node-w", true), ("node-other", false)] {
        let app = app_with(|s| {
            s.services.messaging.sandbox_delivery_reports = false;
            s.cluster.node_id = "node-w".into();
        })
        .await;
        let ws = workspace(&app, "10").await;
        let rx = receiver(200).await;
        hook_and_one_sms(&app, &ws, &rx, "Hi").await;
        received(&rx, 1).await;
        let settings = app.settings.clone();
        let (dir, _) = app.shut_down().await;

        // As the killed process left it: pending, leased for 40 s by `holder` a second ago.
        let db = sea_orm::Database::connect(&settings.database.url)
            .await
            .unwrap();
        let now = chrono::Utc::now();
        let mut row: webhook_delivery::ActiveModel = webhook_delivery::Entity::find()
            .filter(webhook_delivery::Column::EventType.eq("message.sent"))
            .one(&db)
            .await
            .unwrap()
            .expect("the delivery")
            .into();
        row.status = sea_orm::Set(
            switchboard_entities::messaging::webhook_delivery::DeliveryStatus::Pending,
        );
        row.completed_at = sea_orm::Set(None);
        row.next_attempt_at = sea_orm::Set(now + chrono::Duration::seconds(40));
        row.attempt_owner = sea_orm::Set(Some(holder.into()));
        row.attempt_started_at = sea_orm::Set(Some(now - chrono::Duration::seconds(1)));
        sea_orm::ActiveModelTrait::update(row, &db).await.unwrap();
        db.close().await.ok();

        let again = spawn_app_with(move |s| *s = settings).await;
        if taken_back {
            received(&rx, 2).await;
        } else {
            tokio::time::sleep(std::time::Duration::from_secs(2)).await;
            let calls = rx.received_requests().await.unwrap();
            assert_eq!(calls.len(), 1, "another node's lease is waited out");
        }
        drop(again);
        drop(dir);
    }
}
