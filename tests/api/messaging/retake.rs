//! The Twilio-compatible adapter after a crash: a retaken claim looks the message up at the
//! provider before it sends again; callbacks find a message by the id in their URL; stale
//! `sent` messages are reconciled against the provider's status API.

use super::dispatch::{crash_mid_handover, stored};
use super::*;
use wiremock::matchers::{method, path, query_param};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

const TO: &str = "+14155550123";

async fn twilio_app(twilio: &MockServer, tweak: impl FnOnce(&mut Settings)) -> TestApp {
    app_with(|s| {
        s.providers.sms.provider = "twilio".into();
        s.providers.sms.base_url = twilio.uri();
        s.providers.sms.account_sid = "AC9".into();
        tweak(s);
    })
    .await
}

/// The Messages API creates `sid` for every POST.
async fn creates(twilio: &MockServer, sid: &str) {
    Mock::given(method("POST"))
        .and(path("/2010-04-01/Accounts/AC9/Messages.json"))
        .respond_with(ResponseTemplate::new(201).set_body_json(json!({"sid": sid})))
        .mount(twilio)
        .await;
}

/// GET `p` answers `body`.
async fn answers(twilio: &MockServer, p: &str, body: Value) {
    Mock::given(method("GET"))
        .and(path(p))
        .respond_with(ResponseTemplate::new(200).set_body_json(body))
        .mount(twilio)
        .await;
}

async fn requests(twilio: &MockServer, verb: &str) -> Vec<Request> {
    twilio
        .received_requests()
        .await
        .unwrap()
        .into_iter()
        .filter(|r| r.method.as_str() == verb)
        .collect()
}

/// Sends one SMS and waits until it is sent; its id.
async fn sent_sms(app: &TestApp, key: &str, text: &str) -> String {
    send_until(app, key, TO, text, "sent").await
}

#[actix_web::test]
async fn a_retaken_claim_with_a_stored_sid_fetches_it_and_does_not_send_again() {
    let twilio = MockServer::start().await;
    creates(&twilio, "SMr1").await;
    answers(
        &twilio,
        "/2010-04-01/Accounts/AC9/Messages/SMr1.json",
        json!({"sid": "SMr1", "status": "delivered", "body": "hello"}),
    )
    .await;
    let app = twilio_app(&twilio, |_| {}).await;
    let ws = workspace(&app, "5").await;
    let id = sent_sms(&app, &ws.key, "hello").await;
    // The callback stored the SID before the node died.
    crash_mid_handover(&app, &id, Some("SMr1"), app.clock_now()).await;
    app.jobs.run_due().await.unwrap();
    let m = wait_status(&app, &ws.key, &id, "delivered").await;
    assert_eq!(m["provider_message_id"], "SMr1");
    assert_eq!(requests(&twilio, "POST").await.len(), 1, "not sent again");
    assert_eq!(requests(&twilio, "GET").await.len(), 1);
    assert_eq!(app.balance(&ws.key).await, json!(4));
}

#[actix_web::test]
async fn a_retaken_claim_without_a_sid_adopts_the_providers_record() {
    let twilio = MockServer::start().await;
    creates(&twilio, "SMr2").await;
    let app = twilio_app(&twilio, |_| {}).await;
    let ws = workspace(&app, "5").await;
    let day = app.clock_now().format("%Y-%m-%d").to_string();
    Mock::given(method("GET"))
        .and(path("/2010-04-01/Accounts/AC9/Messages.json"))
        .and(query_param("To", TO))
        .and(query_param("DateSent>", day.as_str()))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(json!({"messages": [
                {"sid": "SMother", "status": "delivered", "body": "another text"},
                {"sid": "SMr2", "status": "sent", "body": "adopt me"},
            ]})),
        )
        .expect(1)
        .mount(&twilio)
        .await;
    let id = sent_sms(&app, &ws.key, "adopt me").await;
    crash_mid_handover(&app, &id, None, app.clock_now()).await;
    app.jobs.run_due().await.unwrap();
    let m = wait_status(&app, &ws.key, &id, "sent").await;
    assert_eq!(m["provider_message_id"], "SMr2");
    assert_eq!(stored(&app, &id).await.attempts, 2);
    assert_eq!(
        requests(&twilio, "POST").await.len(),
        1,
        "adopted, not sent again"
    );
}

#[actix_web::test]
async fn a_retaken_claim_the_provider_has_no_record_of_is_sent_once_more() {
    let twilio = MockServer::start().await;
    creates(&twilio, "SMr3").await;
    answers(
        &twilio,
        "/2010-04-01/Accounts/AC9/Messages.json",
        json!({"messages": []}),
    )
    .await;
    let app = twilio_app(&twilio, |_| {}).await;
    let ws = workspace(&app, "5").await;
    let id = sent_sms(&app, &ws.key, "never left").await;
    crash_mid_handover(&app, &id, None, app.clock_now()).await;
    app.jobs.run_due().await.unwrap();
    wait_status(&app, &ws.key, &id, "sent").await;
    assert_eq!(stored(&app, &id).await.attempts, 2);
    let posts = requests(&twilio, "POST").await;
    assert_eq!(posts.len(), 2, "sent once more");
    let callback = format!(
        "StatusCallback=https%3A%2F%2Fsb.example.com%2Fcarrier%2Fstatus%3Fmessage_id%3D{id}"
    );
    let body = String::from_utf8_lossy(&posts[1].body).to_string();
    assert!(body.contains(&callback), "{body}");
    assert_eq!(requests(&twilio, "GET").await.len(), 1);
}

#[actix_web::test]
async fn a_callback_finds_its_message_by_the_id_in_its_url_before_the_sid_is_stored() {
    let twilio = MockServer::start().await;
    creates(&twilio, "SMcb0").await;
    let app = twilio_app(&twilio, |_| {}).await;
    let ws = workspace(&app, "5").await;
    let id = sent_sms(&app, &ws.key, "overtaken").await;
    // Mid hand-over, claim live: the provider's SID is not stored yet.
    let later = app.clock_now() + chrono::Duration::hours(1);
    crash_mid_handover(&app, &id, None, later).await;
    let params = [("MessageSid", "SMcb1"), ("MessageStatus", "delivered")];
    // Without the message id nothing matches.
    let res = carrier_post(&app, "/carrier/status", &params).await;
    assert_eq!(res.status(), 200);
    assert_eq!(message(&app, &ws.key, &id).await["status"], "queued");
    let res = carrier_post(&app, &format!("/carrier/status?message_id={id}"), &params).await;
    assert_eq!(res.status(), 200);
    let m = message(&app, &ws.key, &id).await;
    assert_eq!(m["status"], "delivered");
    assert_eq!(m["provider_message_id"], "SMcb1");
    // The message id is signed with the URL: another id is refused.
    let signed = format!("/carrier/status?message_id={id}");
    let other = format!("/carrier/status?message_id={}", Uuid::new_v4());
    let res = carrier_post_signed_for(&app, &other, &signed, &params).await;
    assert_eq!(res.status(), 403);
}

async fn stale_count(app: &TestApp) -> Value {
    let res = app.client.get(app.m("/health")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    json_body(res).await["details"]["stale_sent_messages"].clone()
}

#[actix_web::test]
async fn stale_sent_messages_are_reconciled_against_the_providers_status() {
    let twilio = MockServer::start().await;
    for (to, sid) in [(TO, "SMst1"), ("+14155550124", "SMst2")] {
        Mock::given(method("POST"))
            .and(path("/2010-04-01/Accounts/AC9/Messages.json"))
            .and(wiremock::matchers::body_string_contains(
                url::form_urlencoded::byte_serialize(to.as_bytes()).collect::<String>(),
            ))
            .respond_with(ResponseTemplate::new(201).set_body_json(json!({"sid": sid})))
            .mount(&twilio)
            .await;
    }
    let accounts = "/2010-04-01/Accounts/AC9/Messages";
    answers(
        &twilio,
        &format!("{accounts}/SMst1.json"),
        json!({"sid": "SMst1", "status": "delivered"}),
    )
    .await;
    answers(
        &twilio,
        &format!("{accounts}/SMst2.json"),
        json!({"sid": "SMst2", "status": "undelivered"}),
    )
    .await;
    let app = twilio_app(&twilio, |s| {
        s.services.messaging.stale_sent_after_secs = 600;
        s.services.messaging.reconcile_interval_secs = 3600;
    })
    .await;
    let ws = workspace(&app, "5").await;
    let delivered = sent_sms(&app, &ws.key, "one").await;
    let failed = send_until(&app, &ws.key, "+14155550124", "two", "sent").await;
    assert_eq!(stale_count(&app).await, 0);
    app.advance(chrono::Duration::seconds(601));
    assert_eq!(stale_count(&app).await, 2);
    assert!(requests(&twilio, "GET").await.is_empty());

    app.advance(chrono::Duration::seconds(3600));
    app.jobs.run_due().await.unwrap();
    wait_status(&app, &ws.key, &delivered, "delivered").await;
    let m = wait_status(&app, &ws.key, &failed, "failed").await;
    assert!(
        m["error_message"].as_str().unwrap().contains("undelivered"),
        "{m}"
    );
    assert_eq!(stale_count(&app).await, 0);
    let fetched: Vec<String> = requests(&twilio, "GET")
        .await
        .iter()
        .map(|r| r.url.path().to_owned())
        .collect();
    assert!(
        fetched.contains(&format!("{accounts}/SMst1.json")),
        "{fetched:?}"
    );
    // The carrier took it: a carrier failure is not refunded.
    assert_eq!(app.balance(&ws.key).await, json!(3));
}

#[actix_web::test]
async fn a_create_whose_answer_is_unreadable_is_looked_up_not_failed_and_refunded() {
    let twilio = MockServer::start().await;
    // The provider took the message, but its answer was cut short: no SID to store.
    Mock::given(method("POST"))
        .and(path("/2010-04-01/Accounts/AC9/Messages.json"))
        .respond_with(ResponseTemplate::new(201).set_body_string(r#"{"sid": "SMcu"#))
        .mount(&twilio)
        .await;
    answers(
        &twilio,
        "/2010-04-01/Accounts/AC9/Messages.json",
        json!({"messages": [{"sid": "SMcut", "status": "sent", "body": "cut short"}]}),
    )
    .await;
    let app = twilio_app(&twilio, |_| {}).await;
    let ws = workspace(&app, "5").await;
    let id = send_sms(&app, &ws.key, TO, "cut short").await;
    // Not failed: the message stays claimed (it reads as queued) and is still charged.
    eventually("the hand-over", || async {
        let r = twilio.received_requests().await.unwrap();
        (!r.is_empty()).then_some(())
    })
    .await;
    app.jobs.run_due().await.unwrap();
    let row = stored(&app, &id).await;
    assert_eq!((row.status.as_str(), row.attempts), ("sending", 1));
    assert_eq!(message(&app, &ws.key, &id).await["status"], "queued");
    assert_eq!(app.balance(&ws.key).await, json!(4));
    // Once the claim lapses, the look-up finds the provider's record and adopts it.
    let claim = i64::try_from(app.settings.services.messaging.claim_secs).unwrap();
    app.advance(chrono::Duration::seconds(claim + 1));
    let m = eventually("the look-up", || async {
        app.jobs.run_due().await.unwrap();
        let m = message(&app, &ws.key, &id).await;
        (m["status"] == "sent").then_some(m)
    })
    .await;
    assert_eq!(m["provider_message_id"], "SMcut");
    assert_eq!(requests(&twilio, "POST").await.len(), 1, "not sent again");
    assert_eq!(app.balance(&ws.key).await, json!(4), "not refunded");
    assert!(ledger(&app, &ws.key)
        .await
        .iter()
        .all(|r| r.reason != "refund"));
}
