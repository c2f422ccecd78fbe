use super::*;
use crate::helpers::*;
use serde_json::json;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

async fn sent_message(app: &TestApp, key: &str, to: &str) -> (String, String) {
    let v = json_body(
        app.post_key("/api/v1/messages/send", key, sms(to, "Hi"))
            .await,
    )
    .await;
    let id = v["data"]["message_id"].as_str().unwrap().to_owned();
    let m = wait_status(app, key, &id, "sent").await;
    (id, m["provider_message_id"].as_str().unwrap().to_owned())
}

async fn no_auto_delivery() -> TestApp {
    app_with(|s| s.services.messaging.sandbox_delivery_reports = false).await
}

#[actix_web::test]
async fn bad_signatures_get_403_in_plain_text() {
    let app = no_auto_delivery().await;
    let ws = workspace(&app, "5").await;
    let (id, sid) = sent_message(&app, &ws.key, "+14155550123").await;
    let params = [("MessageSid", sid.as_str()), ("MessageStatus", "delivered")];
    for path in ["/carrier/status", "/carrier/inbound"] {
        let missing = app
            .client
            .post(app.m(path))
            .form(&params)
            .send()
            .await
            .unwrap();
        assert_eq!(missing.status(), 403);
        assert!(missing.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain"));
        assert!(missing.text().await.unwrap().contains("Forbidden"));
        // Signed for another URL (the signature covers public_url + path).
        let wrong_url = carrier_signature(
            "carrier-token",
            &format!("http://other.example{path}"),
            &params,
        );
        let res = app
            .client
            .post(app.m(path))
            .header("X-Carrier-Signature", wrong_url)
            .form(&params)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 403);
        let wrong_token = carrier_signature(
            "other-token",
            &format!("https://sb.example.com{path}"),
            &params,
        );
        let res = app
            .client
            .post(app.m(path))
            .header("X-Carrier-Signature", wrong_token)
            .form(&params)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 403);
    }
    // A signature over different parameters does not fit.
    let sig = carrier_signature(
        "carrier-token",
        "https://sb.example.com/carrier/status",
        &[("MessageSid", sid.as_str()), ("MessageStatus", "failed")],
    );
    let res = app
        .client
        .post(app.m("/carrier/status"))
        .header("X-Carrier-Signature", sig)
        .form(&params)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403);
    // A message id in the URL that is malformed or unsigned is refused like any forgery,
    // never a 400 that tells the sender what the URL should look like.
    for query in [
        "message_id=",
        "message_id=not-a-uuid",
        &format!("message_id={id}"),
    ] {
        let res = app
            .client
            .post(app.m(&format!("/carrier/status?{query}")))
            .header("X-Carrier-Signature", "bogus")
            .form(&params)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 403, "{query}");
    }
    assert_eq!(message(&app, &ws.key, &id).await["status"], "sent");
}

#[actix_web::test]
async fn status_callbacks_move_forward_only_and_trigger_webhooks() {
    let app = no_auto_delivery().await;
    let ws = workspace(&app, "5").await;
    let (rx, hook) =
        subscribed_receiver(&app, &ws.key, &["message.delivered", "message.failed"]).await;
    let (id, sid) = sent_message(&app, &ws.key, "+14155550123").await;

    let res = carrier_post(
        &app,
        "/carrier/status",
        &[
            ("MessageSid", &sid),
            ("MessageStatus", "delivered"),
            ("AccountSid", "AC1"),
        ],
    )
    .await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.text().await.unwrap(), "OK");
    let m = message(&app, &ws.key, &id).await;
    assert_eq!(m["status"], "delivered");
    assert!(m["delivered_at"].is_string());
    // Late, out-of-order callbacks never move it back.
    for late in ["sent", "queued", "sending", "failed", "undelivered"] {
        let res = carrier_post(
            &app,
            "/carrier/status",
            &[("MessageSid", &sid), ("MessageStatus", late)],
        )
        .await;
        assert_eq!(res.status(), 200);
        assert_eq!(
            message(&app, &ws.key, &id).await["status"],
            "delivered",
            "{late}"
        );
    }
    // Another message fails with the carrier's error code.
    let (id2, sid2) = sent_message(&app, &ws.key, "+14155550124").await;
    carrier_post(
        &app,
        "/carrier/status",
        &[
            ("MessageSid", &sid2),
            ("MessageStatus", "undelivered"),
            ("ErrorCode", "30003"),
        ],
    )
    .await;
    let m2 = message(&app, &ws.key, &id2).await;
    assert_eq!(m2["status"], "failed");
    assert_eq!(m2["error_code"], "30003");
    assert!(m2["failed_at"].is_string());
    carrier_post(
        &app,
        "/carrier/status",
        &[("MessageSid", &sid2), ("MessageStatus", "delivered")],
    )
    .await;
    assert_eq!(message(&app, &ws.key, &id2).await["status"], "failed");
    // Unknown ids and unknown statuses are acknowledged.
    let res = carrier_post(
        &app,
        "/carrier/status",
        &[("MessageSid", "SMunknown"), ("MessageStatus", "delivered")],
    )
    .await;
    assert_eq!(res.status(), 200);

    // Each move wrote its event in the same transaction: the rows are all there will be.
    let rows = super::webhooks::settled_rows(&app, &hook).await;
    assert_eq!(rows.len(), 2, "one event per move");
    let reqs = rx.received_requests().await.unwrap();
    assert_eq!(reqs.len(), 2);
    let delivered: serde_json::Value = serde_json::from_slice(&reqs[0].body).unwrap();
    assert_eq!(delivered["type"], "message.delivered");
    assert_eq!(delivered["data"]["message_id"], id);
    let failed: serde_json::Value = serde_json::from_slice(&reqs[1].body).unwrap();
    assert_eq!(failed["type"], "message.failed");
    let keys: Vec<&String> = failed["data"].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "channel",
            "error_code",
            "error_message",
            "message_id",
            "recipient",
            "status",
            "timestamp"
        ]
    );
    assert_eq!(failed["data"]["error_code"], "30003");
    assert_eq!(failed["data"]["recipient"], "+14155550124");
}

#[actix_web::test]
async fn a_failed_callback_before_sent_is_not_undone_by_a_late_sent() {
    let app = no_auto_delivery().await;
    let ws = workspace(&app, "5").await;
    let (id, sid) = sent_message(&app, &ws.key, "+14155550123").await;
    carrier_post(
        &app,
        "/carrier/status",
        &[("MessageSid", &sid), ("MessageStatus", "failed")],
    )
    .await;
    carrier_post(
        &app,
        "/carrier/status",
        &[("MessageSid", &sid), ("MessageStatus", "sent")],
    )
    .await;
    let m = message(&app, &ws.key, &id).await;
    assert_eq!(m["status"], "failed");
    assert_eq!(m["error_code"], "carrier_failed");
}

#[actix_web::test]
async fn inbound_messages_are_stored_for_the_number_owner_and_announced() {
    let app = app().await;
    let owner = workspace_with(&app, "1", None, Some("+15550001111")).await;
    let other = workspace_with(&app, "1", None, Some("+15550002222")).await;
    let rx = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(204))
        .mount(&rx)
        .await;
    webhook(
        &app,
        &owner.key,
        &format!("{}/hook", rx.uri()),
        &["message.received"],
    )
    .await;
    let params = [
        ("MessageSid", "SMinbound1"),
        ("From", "+4915112345678"),
        ("To", "+15550001111"),
        ("Body", "STOP please"),
        ("NumMedia", "0"),
    ];
    let res = carrier_post(&app, "/carrier/inbound", &params).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.text().await.unwrap(), "OK");
    // The carrier retries: still one message.
    carrier_post(&app, "/carrier/inbound", &params).await;
    let list = json_body(
        app.get_key("/api/v1/messages?status=received", &owner.key)
            .await,
    )
    .await;
    assert_eq!(list["data"]["pagination"]["total"], 1);
    let m = &list["data"]["messages"][0];
    assert_eq!(m["direction"], "inbound");
    assert_eq!(m["from"], "+4915112345678");
    assert_eq!(m["to"], "+15550001111");
    assert_eq!(m["text"], "STOP please");
    assert_eq!(m["credits_used"], json!(0));
    let theirs = json_body(app.get_key("/api/v1/messages", &other.key).await).await;
    assert_eq!(theirs["data"]["pagination"]["total"], 0);
    let reqs = eventually("message.received", || async {
        let r = rx.received_requests().await.unwrap();
        (!r.is_empty()).then_some(r)
    })
    .await;
    let ev: serde_json::Value = serde_json::from_slice(&reqs[0].body).unwrap();
    assert_eq!(ev["type"], "message.received");
    let mut data = ev["data"].clone();
    assert_carrier_fields(&data, "received", None);
    assert_eq!(data["message_id"], m["message_id"]);
    assert_eq!(data["recipient"], "+15550001111");
    for common in [
        "message_id",
        "recipient",
        "status",
        "error_code",
        "error_message",
        "timestamp",
    ] {
        data.as_object_mut().unwrap().remove(common);
    }
    assert_eq!(
        data,
        json!({"from": "+4915112345678", "to": "+15550001111", "content": "STOP please", "channel": "sms"})
    );
    // A number nobody owns is acknowledged and dropped.
    let res = carrier_post(
        &app,
        "/carrier/inbound",
        &[
            ("MessageSid", "SMx"),
            ("From", "+1"),
            ("To", "+19999999999"),
            ("Body", "?"),
        ],
    )
    .await;
    assert_eq!(res.status(), 200);
}

#[actix_web::test]
async fn the_signed_url_includes_the_query_string() {
    let app = no_auto_delivery().await;
    let ws = workspace(&app, "5").await;
    let (id, sid) = sent_message(&app, &ws.key, "+14155550123").await;
    let params = [("MessageSid", sid.as_str()), ("MessageStatus", "delivered")];
    let sig = carrier_signature(
        "carrier-token",
        "https://sb.example.com/carrier/status?region=eu",
        &params,
    );
    let res = app
        .client
        .post(app.m("/carrier/status?region=eu"))
        .header("X-Carrier-Signature", sig)
        .form(&params)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(message(&app, &ws.key, &id).await["status"], "delivered");
}

/// Anchors the helper every signed callback above relies on to Twilio's published example
/// (https://www.twilio.com/docs/usage/security); the parameters are
/// given out of order, since sorting them is part of the algorithm.
#[test]
fn the_test_signature_helper_matches_twilios_published_vector() {
    let params = [
        ("To", "+18005551212"),
        ("Digits", "1234"),
        ("CallSid", "CA1234567890ABCDE"),
        ("From", "+12349013030"),
        ("Caller", "+12349013030"),
    ];
    assert_eq!(
        carrier_signature(
            "12345",
            "https://mycompany.com/myapp.php?foo=1&bar=2",
            &params
        ),
        "0/KCTR6DLpKmkAf8muzZqo1nDgQ="
    );
}

#[actix_web::test]
async fn message_sent_is_emitted_once_despite_repeated_and_late_sent_callbacks() {
    let app = no_auto_delivery().await;
    let ws = workspace(&app, "5").await;
    let (rx, hook) =
        subscribed_receiver(&app, &ws.key, &["message.sent", "message.delivered"]).await;
    // The provider accepted it: that is the one message.sent.
    let (id, sid) = sent_message(&app, &ws.key, "+14155550123").await;
    let sent_cb = [("MessageSid", sid.as_str()), ("MessageStatus", "sent")];
    // The carrier's own `sent` callback, then its retry of it.
    for _ in 0..2 {
        let res = carrier_post(&app, "/carrier/status", &sent_cb).await;
        assert_eq!(res.status(), 200);
        assert_eq!(res.text().await.unwrap(), "OK");
    }
    carrier_post(
        &app,
        "/carrier/status",
        &[("MessageSid", sid.as_str()), ("MessageStatus", "delivered")],
    )
    .await;
    // A `sent` that arrives after `delivered`.
    let res = carrier_post(&app, "/carrier/status", &sent_cb).await;
    assert_eq!(res.status(), 200);
    assert_eq!(message(&app, &ws.key, &id).await["status"], "delivered");

    // Every callback above has been answered, so every event it caused is a row by now.
    let rows = super::webhooks::settled_rows(&app, &hook).await;
    assert_eq!(rows.len(), 2, "{rows:?}");
    let events: Vec<serde_json::Value> = rx
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect();
    let count = |kind: &str| {
        events
            .iter()
            .filter(|e| e["type"] == kind && e["data"]["message_id"] == id.as_str())
            .count()
    };
    assert_eq!(count("message.sent"), 1, "{events:?}");
    assert_eq!(count("message.delivered"), 1, "{events:?}");
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[0]["data"]["provider_message_id"], sid);
}

#[actix_web::test]
async fn the_same_inbound_callback_posted_concurrently_is_stored_and_announced_once() {
    let app = app().await;
    let owner = workspace_with(&app, "1", None, Some("+15550003333")).await;
    let (rx, hook) = subscribed_receiver(&app, &owner.key, &["message.received"]).await;
    let params = [
        ("MessageSid", "SMconcurrent1"),
        ("From", "+4915112345678"),
        ("To", "+15550003333"),
        ("Body", "twice?"),
    ];
    let answers = futures_util::future::join_all(
        (0..8).map(|_| carrier_post(&app, "/carrier/inbound", &params)),
    )
    .await;
    for res in answers {
        assert_eq!(res.status(), 200, "every copy is acknowledged");
    }
    let list = json_body(
        app.get_key("/api/v1/messages?status=received", &owner.key)
            .await,
    )
    .await;
    assert_eq!(list["data"]["pagination"]["total"], 1, "{list}");
    // One message.received delivery row, settled: the receiver heard it once, and no other
    // copy was queued (rows are the whole truth of what the endpoint will send).
    let rows = super::webhooks::settled_rows(&app, &hook).await;
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rx.received_requests().await.unwrap().len(), 1);
    assert_eq!(attempts(&app, &owner.key, &hook).await.len(), 1);
}

/// The spec's fields of every carrier-driven event, by name and type: message_id (a UUID),
/// channel, recipient, status, error_code and error_message (null when there is no error) and
/// timestamp (ISO 8601).
pub(super) fn assert_carrier_fields(
    data: &serde_json::Value,
    status: &str,
    error: Option<(&str, &str)>,
) {
    assert!(
        data["message_id"]
            .as_str()
            .is_some_and(|s| s.parse::<uuid::Uuid>().is_ok()),
        "{data}"
    );
    assert_eq!(data["channel"], "sms", "{data}");
    assert!(data["recipient"].is_string(), "{data}");
    assert_eq!(data["status"], status, "{data}");
    match error {
        None => {
            // Present and null: a missing key would also read as null.
            assert_eq!(
                data.get("error_code"),
                Some(&serde_json::Value::Null),
                "{data}"
            );
            assert_eq!(
                data.get("error_message"),
                Some(&serde_json::Value::Null),
                "{data}"
            );
        }
        Some((code, text)) => {
            assert_eq!(data["error_code"], code, "{data}");
            assert_eq!(data["error_message"], text, "{data}");
        }
    }
    let ts = data["timestamp"].as_str().unwrap_or_default();
    assert!(
        chrono::DateTime::parse_from_rfc3339(ts).is_ok(),
        "timestamp {ts} is ISO 8601"
    );
}

#[actix_web::test]
async fn carrier_driven_events_carry_message_status_error_and_timestamp() {
    let app = app_with(|s| s.services.messaging.sandbox_delivery_reports = false).await;
    app.clock.freeze();
    let now = app
        .clock_now()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let ws = workspace_with(&app, "5", None, Some("+15550003333")).await;
    let (rx, hook) = subscribed_receiver(
        &app,
        &ws.key,
        &[
            "message.sent",
            "message.delivered",
            "message.failed",
            "message.received",
        ],
    )
    .await;
    let (delivered_id, sid) = sent_message(&app, &ws.key, "+14155550123").await;
    carrier_post(
        &app,
        "/carrier/status",
        &[("MessageSid", sid.as_str()), ("MessageStatus", "delivered")],
    )
    .await;
    let (failed_id, sid2) = sent_message(&app, &ws.key, "+14155550124").await;
    carrier_post(
        &app,
        "/carrier/status",
        &[
            ("MessageSid", sid2.as_str()),
            ("MessageStatus", "undelivered"),
            ("ErrorCode", "30003"),
            ("ErrorMessage", "Unreachable destination handset"),
        ],
    )
    .await;
    carrier_post(
        &app,
        "/carrier/inbound",
        &[
            ("MessageSid", "SMin9"),
            ("From", "+4915112345678"),
            ("To", "+15550003333"),
            ("Body", "hello"),
        ],
    )
    .await;
    let rows = super::webhooks::settled_rows(&app, &hook).await;
    assert_eq!(rows.len(), 5, "{rows:?}");
    let events: Vec<serde_json::Value> = rx
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect();
    let event = |kind: &str, id: Option<&str>| {
        events
            .iter()
            .find(|e| e["type"] == kind && id.is_none_or(|id| e["data"]["message_id"] == id))
            .unwrap_or_else(|| panic!("{kind} in {events:?}"))["data"]
            .clone()
    };
    for (id, s) in [(&delivered_id, &sid), (&failed_id, &sid2)] {
        let sent = event("message.sent", Some(id));
        assert_carrier_fields(&sent, "sent", None);
        assert_eq!(sent["provider_message_id"], s.as_str());
        assert_eq!(sent["timestamp"], now);
    }
    let delivered = event("message.delivered", Some(&delivered_id));
    assert_carrier_fields(&delivered, "delivered", None);
    assert_eq!(delivered["recipient"], "+14155550123");
    assert_eq!(delivered["delivered_at"], now);
    assert_eq!(delivered["timestamp"], now);
    let failed = event("message.failed", Some(&failed_id));
    assert_carrier_fields(
        &failed,
        "failed",
        Some(("30003", "Unreachable destination handset")),
    );
    assert_eq!(failed["recipient"], "+14155550124");
    assert_eq!(failed["timestamp"], now);
    let received = event("message.received", None);
    assert_carrier_fields(&received, "received", None);
    assert_eq!(received["recipient"], "+15550003333");
    assert_eq!(received["from"], "+4915112345678");
    assert_eq!(received["content"], "hello");
    assert_eq!(received["timestamp"], now);
}
