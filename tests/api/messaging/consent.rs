//! Opt-outs: STOP, START and HELP through the carrier callback, the suppression list, bulk
//! mail's one-click unsubscribe read from a real SMTP server, and the email provider's signed
//! bounce and complaint events.

use super::*;
use crate::helpers::*;
use serde_json::json;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

const NUMBER: &str = "+15550001111";
const PERSON: &str = "+14155550123";

async fn inbound(app: &TestApp, sid: &str, from: &str, body: &str) {
    let params = [
        ("MessageSid", sid),
        ("From", from),
        ("To", NUMBER),
        ("Body", body),
    ];
    let res = carrier_post(app, "/carrier/inbound", &params).await;
    assert_eq!(res.status(), 200);
}

/// The texts the service sent to `to` (the sandbox's outbox), oldest first.
async fn texts_to(app: &TestApp, to: &str, n: usize) -> Vec<String> {
    eventually(&format!("{n} texts to {to}"), || async {
        let got: Vec<String> = app
            .outbox_for(to)
            .iter()
            .filter_map(|m| m["text"].as_str().map(str::to_owned))
            .collect();
        (got.len() >= n).then_some(got)
    })
    .await
}

async fn ledger_len(app: &TestApp, key: &str) -> usize {
    ledger(app, key).await.len()
}

#[actix_web::test]
async fn stop_refuses_the_next_send_and_start_lets_it_through_with_signed_events_in_order() {
    let app = app().await;
    let ws = workspace_with(&app, "5", None, Some(NUMBER)).await;
    let rx = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&rx)
        .await;
    let (_, secret) = webhook(
        &app,
        &ws.key,
        &format!("{}/hook", rx.uri()),
        &["contact.opted_out", "contact.opted_in"],
    )
    .await;

    inbound(&app, "SMstop1", PERSON, "  Stop ").await;
    // The carrier repeats its callback: nothing happens twice.
    inbound(&app, "SMstop1", PERSON, "  Stop ").await;
    let replies = texts_to(&app, PERSON, 1).await;
    assert!(replies[0].contains("unsubscribed"), "{replies:?}");

    let balance = app.balance(&ws.key).await;
    let entries = ledger_len(&app, &ws.key).await;
    let res = app
        .post_key("/api/v1/messages/send", &ws.key, sms(PERSON, "Sale today"))
        .await;
    let v = assert_err(res, 422, "recipient_opted_out").await;
    assert!(v["message"].as_str().unwrap().contains(PERSON), "{v}");
    assert_eq!(app.balance(&ws.key).await, balance, "no credit moved");
    assert_eq!(ledger_len(&app, &ws.key).await, entries);
    // The confirmation was not charged either.
    assert_eq!(balance, json!(5));

    inbound(&app, "SMstart1", PERSON, "start").await;
    let replies = texts_to(&app, PERSON, 2).await;
    assert!(replies[1].contains("resubscribed"), "{replies:?}");
    let res = app
        .post_key("/api/v1/messages/send", &ws.key, sms(PERSON, "Sale today"))
        .await;
    assert_eq!(res.status(), 201);
    assert_eq!(json_body(res).await["data"]["status"], "queued");

    let reqs = eventually("two contact events", || async {
        let r = rx.received_requests().await.unwrap();
        (r.len() >= 2).then_some(r)
    })
    .await;
    assert_eq!(reqs.len(), 2, "one event per change, none for the repeat");
    let kinds: Vec<String> = reqs
        .iter()
        .map(|r| {
            assert_eq!(
                r.headers["x-service-signature"].to_str().unwrap(),
                receiver_signature(&secret, &r.body)
            );
            let ev: Value = serde_json::from_slice(&r.body).unwrap();
            assert_eq!(ev["data"]["channel"], "sms");
            assert_eq!(ev["data"]["address"], PERSON);
            assert_eq!(ev["data"]["source"], "keyword");
            assert!(ev["data"]["message_id"].is_string(), "{ev}");
            ev["type"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(kinds, ["contact.opted_out", "contact.opted_in"]);

    // The audit trail: when, how, and the message that caused each change.
    let v = json_body(
        app.get_key(&format!("/api/v1/suppressions/sms/{PERSON}"), &ws.key)
            .await,
    )
    .await;
    assert_eq!(v["data"]["suppressed"], false);
    let history = v["data"]["history"].as_array().unwrap();
    assert_eq!(history.len(), 2, "{v}");
    assert_eq!(history[0]["action"], "opted_out");
    assert_eq!(history[0]["reason"], "STOP");
    assert_eq!(history[1]["action"], "opted_in");
    assert_eq!(history[1]["source"], "keyword");
    let inbound_ids: Vec<Value> = json_body(
        app.get_key("/api/v1/messages?status=received", &ws.key)
            .await,
    )
    .await["data"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["message_id"].clone())
        .collect();
    assert!(inbound_ids.contains(&history[0]["message_id"]), "{v}");
    // Inbound keywords are still stored messages (and still message.received).
    assert_eq!(inbound_ids.len(), 2);
}

#[actix_web::test]
async fn a_bulk_of_ten_with_two_opted_out_queues_eight_and_names_the_two() {
    let app = app().await;
    let ws = workspace(&app, "100").await;
    let numbers: Vec<String> = (0..10).map(|i| format!("+1415555010{i}")).collect();
    for n in [&numbers[3], &numbers[7]] {
        // Spelled as a person types it: stored in E.164.
        let typed = format!("+1 (415) 555-010{}", n.chars().last().unwrap());
        let res = app
            .post_key(
                "/api/v1/suppressions",
                &ws.key,
                json!({"channel": "sms", "address": typed, "reason": "asked by phone"}),
            )
            .await;
        assert_eq!(res.status(), 201);
        assert_eq!(json_body(res).await["data"]["address"], n.as_str());
    }
    let recipients: Vec<Value> = numbers.iter().map(|n| json!({"to": n})).collect();
    let res = app
        .post_key(
            "/api/v1/messages/bulk",
            &ws.key,
            json!({"channel": "sms", "recipients": recipients, "content": {"text": "Hello"}}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let v = json_body(res).await;
    assert_eq!(v["data"]["queued"], 8, "{v}");
    assert_eq!(v["data"]["failed"], 2);
    assert_eq!(v["data"]["credits_used"], json!(8));
    let failures = v["data"]["failures"].as_array().unwrap();
    assert_eq!(failures[0]["index"], 3);
    assert_eq!(failures[1]["index"], 7);
    for f in failures {
        assert_eq!(f["code"], "recipient_opted_out");
        assert!(f["reason"].as_str().unwrap().contains("opted out"), "{f}");
    }
    assert_eq!(app.balance(&ws.key).await, json!(92));
    // A bulk of only opted-out recipients moves nothing.
    let res = app
        .post_key(
            "/api/v1/messages/bulk",
            &ws.key,
            json!({"channel": "sms", "recipients": [{"to": numbers[3]}], "content": {"text": "Hi"}}),
        )
        .await;
    let v = json_body(res).await;
    assert_eq!(v["data"]["queued"], 0);
    assert_eq!(v["data"]["failed"], 1);
    assert_eq!(app.balance(&ws.key).await, json!(92));
}

#[actix_web::test]
async fn help_is_answered_once_and_answers_use_the_workspaces_words() {
    let app = app().await;
    let ws = workspace_with(&app, "5", None, Some(NUMBER)).await;
    let words = json!({
        "opt_out_reply": "Acme: you will get no more texts. Reply START to come back.",
        "help_reply": "Acme help: call 0800 123 456. Reply STOP to opt out.",
    });
    let res = app
        .client
        .put(app.m("/api/v1/account/consent"))
        .header("X-API-Key", &ws.key)
        .json(&words)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let v = json_body(res).await;
    assert_eq!(v["data"]["help_reply"], words["help_reply"]);
    // Not set: the default words, shown as such.
    assert!(v["data"]["opt_in_reply"]
        .as_str()
        .unwrap()
        .contains("resubscribed"));

    inbound(&app, "SMhelp1", PERSON, "help").await;
    inbound(&app, "SMhelp1", PERSON, "help").await;
    // Each answer is awaited before the next keyword: two answers queued together may be
    // handed over in either order.
    texts_to(&app, PERSON, 1).await;
    inbound(&app, "SMstop2", PERSON, "QUIT").await;
    let replies = texts_to(&app, PERSON, 2).await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let replies_now = texts_to(&app, PERSON, 2).await;
    assert_eq!(replies_now.len(), 2, "HELP answered once: {replies_now:?}");
    assert_eq!(replies[0], words["help_reply"]);
    assert_eq!(replies[1], words["opt_out_reply"]);
    // HELP changes nothing; QUIT opted out.
    let v = json_body(
        app.get_key(&format!("/api/v1/suppressions/sms/{PERSON}"), &ws.key)
            .await,
    )
    .await;
    assert_eq!(v["data"]["suppressed"], true);
    assert_eq!(v["data"]["history"].as_array().unwrap().len(), 1);
    // A keyword inside a sentence is an ordinary message.
    inbound(
        &app,
        "SMchat1",
        "+14155550999",
        "please stop calling me later",
    )
    .await;
    let list = json_body(app.get_key("/api/v1/suppressions", &ws.key).await).await;
    assert_eq!(list["data"]["pagination"]["total"], 1);

    // Bad words are refused in the envelope.
    for bad in [
        json!({"help_reply": "x".repeat(321)}),
        json!({"opt_out_reply": "bell\u{7}"}),
        json!({"unsubscribe_mailbox": "not-an-address"}),
    ] {
        let res = app
            .client
            .put(app.m("/api/v1/account/consent"))
            .header("X-API-Key", &ws.key)
            .json(&bad)
            .send()
            .await
            .unwrap();
        assert_err(res, 400, "validation_error").await;
    }
    let res = app
        .client
        .get(app.m("/api/v1/account/consent"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);
}

#[actix_web::test]
async fn suppressions_are_listed_added_and_removed_by_their_own_workspace_only() {
    let app = app().await;
    let ws = workspace(&app, "5").await;
    let other = workspace(&app, "5").await;
    let add = |body: Value| {
        let (app, key) = (&app, ws.key.clone());
        async move { app.post_key("/api/v1/suppressions", &key, body).await }
    };
    let res = add(json!({"channel": "email", "address": "Ann.Lee@Example.COM"})).await;
    assert_eq!(res.status(), 201);
    let v = json_body(res).await;
    assert_eq!(v["data"]["address"], "Ann.Lee@example.com");
    assert_eq!(v["data"]["source"], "api");
    // Adding again answers the suppression as it stands.
    let res = add(json!({"channel": "email", "address": "ann.lee@EXAMPLE.com"})).await;
    assert_eq!(
        res.status(),
        201,
        "another local-part case is another mailbox"
    );
    let res = add(json!({"channel": "email", "address": "Ann.Lee@example.com"})).await;
    assert_eq!(res.status(), 200);
    assert_eq!(
        add(json!({"channel": "sms", "address": PERSON}))
            .await
            .status(),
        201
    );
    for bad in [
        json!({"channel": "fax", "address": PERSON}),
        json!({"channel": "sms", "address": "415-555"}),
        json!({"channel": "email", "address": "nobody"}),
        json!({"channel": "sms"}),
        json!({"channel": "sms", "address": PERSON, "reason": "x".repeat(501)}),
    ] {
        assert_err(add(bad).await, 400, "validation_error").await;
    }
    // Case of the domain does not matter to a send.
    let res = app
        .post_key(
            "/api/v1/messages/send",
            &ws.key,
            json!({"to": "Ann.Lee@EXAMPLE.COM", "channel": "email",
                   "content": {"subject": "Hi", "text": "Hello"}}),
        )
        .await;
    assert_err(res, 422, "recipient_opted_out").await;

    let list = json_body(app.get_key("/api/v1/suppressions", &ws.key).await).await;
    assert_eq!(list["data"]["pagination"]["total"], 3);
    let sms_only = json_body(
        app.get_key("/api/v1/suppressions?channel=sms&limit=1", &ws.key)
            .await,
    )
    .await;
    assert_eq!(sms_only["data"]["pagination"]["total"], 1);
    assert_eq!(sms_only["data"]["suppressions"][0]["address"], PERSON);
    assert_err(
        app.get_key("/api/v1/suppressions?channel=fax", &ws.key)
            .await,
        400,
        "validation_error",
    )
    .await;
    let theirs = json_body(app.get_key("/api/v1/suppressions", &other.key).await).await;
    assert_eq!(theirs["data"]["pagination"]["total"], 0);
    // Another workspace can send to the address; it cannot lift this one's suppression.
    let res = app
        .post_key("/api/v1/messages/send", &other.key, sms(PERSON, "Hi"))
        .await;
    assert_eq!(res.status(), 201);
    let delete = |key: String, path: String| {
        let app = &app;
        async move {
            app.client
                .delete(app.m(&path))
                .header("X-API-Key", key)
                .send()
                .await
                .unwrap()
        }
    };
    let path = format!("/api/v1/suppressions/sms/{PERSON}");
    assert_err(
        delete(other.key.clone(), path.clone()).await,
        404,
        "not_found",
    )
    .await;
    let res = delete(ws.key.clone(), path.clone()).await;
    assert_eq!(res.status(), 200);
    let v = json_body(res).await;
    assert_eq!(v["data"]["suppressed"], false);
    let actions: Vec<&str> = v["data"]["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["opted_out", "opted_in"]);
    assert_err(delete(ws.key.clone(), path).await, 404, "not_found").await;
    assert_err(
        delete(ws.key.clone(), "/api/v1/suppressions/sms/12".into()).await,
        400,
        "validation_error",
    )
    .await;
    let res = app
        .post_key("/api/v1/messages/send", &ws.key, sms(PERSON, "Hi again"))
        .await;
    assert_eq!(res.status(), 201);
    let res = app
        .client
        .get(app.m("/api/v1/suppressions"))
        .send()
        .await
        .unwrap();
    assert_err(res, 401, "unauthorized").await;
}

/// The path and query of a URL this service made (its public URL is not this test's address).
fn local(url: &str) -> String {
    let u = url::Url::parse(url).unwrap();
    u.path().to_owned()
}

#[actix_web::test]
async fn bulk_mail_carries_one_click_unsubscribe_and_a_post_to_it_suppresses() {
    let (smtp, app) = super::providers::SmtpServer::with_app().await;
    let ws = workspace(&app, "5").await;
    let res = app
        .client
        .put(app.m("/api/v1/account/consent"))
        .header("X-API-Key", &ws.key)
        .json(&json!({"unsubscribe_mailbox": "unsubscribe@acme.test"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let res = app
        .post_key(
            "/api/v1/messages/bulk",
            &ws.key,
            json!({"channel": "email", "recipients": [{"to": "Ann@Example.com", "name": "Ann"}],
                   "content": {"subject": "Spring sale", "text": "Hello {{name}}"}}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let mail = eventually("bulk mail in the maildir", || async {
        smtp.messages()
            .into_iter()
            .find(|m| m.contains("Spring sale"))
    })
    .await;
    let unfolded = mail.replace("\r\n ", " ").replace("\n ", " ");
    let header = unfolded
        .lines()
        .find_map(|l| l.strip_prefix("List-Unsubscribe: "))
        .unwrap_or_else(|| panic!("List-Unsubscribe in {mail}"));
    assert!(
        unfolded.contains("List-Unsubscribe-Post: List-Unsubscribe=One-Click"),
        "{mail}"
    );
    assert!(
        header.contains("<mailto:unsubscribe@acme.test?subject=unsubscribe>"),
        "{header}"
    );
    let link = header
        .split(['<', '>'])
        .find(|p| p.starts_with("https://sb.example.com/unsubscribe/"))
        .unwrap_or_else(|| panic!("an https link in {header}"))
        .to_owned();
    let path = local(&link);

    // The page a person sees changes nothing; the POST does, without a login.
    let page = app.client.get(app.m(&path)).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .contains("default-src 'none'"));
    let html = page.text().await.unwrap();
    assert!(
        html.contains("Ann@example.com") && html.contains("Acme Shop"),
        "{html}"
    );
    let v = json_body(app.get_key("/api/v1/suppressions", &ws.key).await).await;
    assert_eq!(v["data"]["pagination"]["total"], 0);
    let res = app
        .client
        .post(app.m(&path))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body("List-Unsubscribe=One-Click")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let v = json_body(
        app.get_key("/api/v1/suppressions?channel=email", &ws.key)
            .await,
    )
    .await;
    assert_eq!(v["data"]["pagination"]["total"], 1);
    let s = &v["data"]["suppressions"][0];
    assert_eq!(s["address"], "Ann@example.com");
    assert_eq!(s["source"], "link");
    assert!(s["message_id"].is_string());
    // Clicked twice: still 200, still one suppression.
    let again = app.client.post(app.m(&path)).send().await.unwrap();
    assert_eq!(again.status(), 200);
    // A tampered link opens nothing.
    let mut tampered = path.clone();
    tampered.pop();
    tampered.push(if path.ends_with('0') { '1' } else { '0' });
    let res = app.client.post(app.m(&tampered)).send().await.unwrap();
    assert_eq!(res.status(), 404);
    let res = app
        .client
        .get(app.m("/unsubscribe/not-a-token"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);

    // A single send is transactional: no unsubscribe headers.
    let res = app
        .post_key(
            "/api/v1/messages/send",
            &ws.key,
            json!({"to": "bob@example.com", "channel": "email",
                   "content": {"subject": "Your receipt", "text": "Thanks"}}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let receipt = eventually("receipt in the maildir", || async {
        smtp.messages()
            .into_iter()
            .find(|m| m.contains("Your receipt"))
    })
    .await;
    assert!(!receipt.contains("List-Unsubscribe"), "{receipt}");
}

/// A P-256 key of the test's own, as SendGrid holds its signing key.
fn provider_key() -> p256::ecdsa::SigningKey {
    p256::ecdsa::SigningKey::from_slice(&[0x2a; 32]).unwrap()
}

fn provider_public_key() -> String {
    use base64::Engine;
    use p256::pkcs8::EncodePublicKey;
    let der = provider_key().verifying_key().to_public_key_der().unwrap();
    base64::engine::general_purpose::STANDARD.encode(der.as_bytes())
}

/// SendGrid's signature headers over `body` at `timestamp`.
fn signed_by_provider(timestamp: i64, body: &str) -> (String, String) {
    use base64::Engine;
    use p256::ecdsa::signature::Signer;
    let mut signed = timestamp.to_string().into_bytes();
    signed.extend_from_slice(body.as_bytes());
    let sig: p256::ecdsa::Signature = provider_key().sign(&signed);
    (
        base64::engine::general_purpose::STANDARD.encode(sig.to_der().as_bytes()),
        timestamp.to_string(),
    )
}

async fn post_events(app: &TestApp, body: &str, sig: &(String, String)) -> reqwest::Response {
    app.client
        .post(app.m("/providers/email/events"))
        .header("Content-Type", "application/json")
        .header("X-Twilio-Email-Event-Webhook-Signature", &sig.0)
        .header("X-Twilio-Email-Event-Webhook-Timestamp", &sig.1)
        .body(body.to_owned())
        .send()
        .await
        .unwrap()
}

#[actix_web::test]
async fn the_providers_signed_bounces_and_complaints_suppress_their_addresses() {
    let key = provider_public_key();
    let app = app_with(move |s| s.providers.email.events_public_key = key).await;
    let ws = workspace(&app, "5").await;
    let mut ids = Vec::new();
    for to in ["ann@example.com", "bob@example.com"] {
        let res = app
            .post_key(
                "/api/v1/messages/send",
                &ws.key,
                json!({"to": to, "channel": "email", "content": {"subject": "Hi", "text": "Hello"}}),
            )
            .await;
        let id = json_body(res).await["data"]["message_id"]
            .as_str()
            .unwrap()
            .to_owned();
        let handed_over = eventually("the mail handed over", || async {
            let m = message(&app, &ws.key, &id).await;
            m["provider_message_id"].as_str().map(str::to_owned)
        })
        .await;
        ids.push(handed_over);
    }
    let fixture = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/sendgrid/events.json"
    ))
    .unwrap()
    .replace("{SMTP_ID}", &ids[0])
    .replace("{OTHER_SMTP_ID}", &ids[1]);
    let now = app.clock_now().timestamp();

    // Unsigned, signed by another key, signed long ago, or altered: refused, nothing changed.
    let res = app
        .client
        .post(app.m("/providers/email/events"))
        .body(fixture.clone())
        .send()
        .await
        .unwrap();
    assert_err(res, 403, "forbidden").await;
    let old = signed_by_provider(now - 3600, &fixture);
    assert_err(post_events(&app, &fixture, &old).await, 403, "forbidden").await;
    let sig = signed_by_provider(now, &fixture);
    let altered = fixture.replace("bob@example.com", "eve@example.com");
    assert_err(post_events(&app, &altered, &sig).await, 403, "forbidden").await;
    let v = json_body(app.get_key("/api/v1/suppressions", &ws.key).await).await;
    assert_eq!(v["data"]["pagination"]["total"], 0);

    let res = post_events(&app, &fixture, &sig).await;
    assert_eq!(res.status(), 200);
    let v = json_body(res).await;
    assert_eq!(v["data"]["events"], 7);
    // The hard bounce and the complaint; the blocked bounce and the unknown mail are not.
    assert_eq!(v["data"]["suppressed"], 2, "{v}");
    assert_eq!(v["data"]["unmatched"], 1, "{v}");
    let list = json_body(
        app.get_key("/api/v1/suppressions?channel=email", &ws.key)
            .await,
    )
    .await;
    let mut rows: Vec<(String, String, String)> = list["data"]["suppressions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["address"].as_str().unwrap().to_owned(),
                s["source"].as_str().unwrap().to_owned(),
                s["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    rows.sort();
    assert_eq!(rows[0].0, "ann@example.com");
    assert_eq!(rows[0].1, "bounce");
    assert!(rows[0].2.contains("500 unknown recipient"), "{rows:?}");
    assert_eq!(rows[1].0, "bob@example.com");
    assert_eq!(rows[1].1, "complaint");
    // Delivered again (the provider retries): nothing new.
    let res = post_events(&app, &fixture, &sig).await;
    assert_eq!(json_body(res).await["data"]["suppressed"], 0);
    let res = app
        .post_key(
            "/api/v1/messages/send",
            &ws.key,
            json!({"to": "ann@example.com", "channel": "email", "content": {"subject": "Hi", "text": "Again"}}),
        )
        .await;
    assert_err(res, 422, "recipient_opted_out").await;
    // Not JSON events: 400 once the signature holds.
    let sig = signed_by_provider(now, "{\"not\": \"an array\"}");
    assert_err(
        post_events(&app, "{\"not\": \"an array\"}", &sig).await,
        400,
        "validation_error",
    )
    .await;
}

#[actix_web::test]
async fn provider_events_are_refused_where_no_key_is_configured() {
    let app = app().await;
    let sig = signed_by_provider(app.clock_now().timestamp(), "[]");
    assert_err(post_events(&app, "[]", &sig).await, 404, "not_found").await;
}

#[actix_web::test]
async fn a_recipient_who_opts_out_after_acceptance_is_not_sent_to_and_gets_the_credit_back() {
    let twilio = MockServer::start().await;
    // Each hand-over takes a while, and one dispatch batch runs at a time: the second
    // message waits for its batch while its recipient opts out.
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(201)
                .set_body_json(json!({"sid": "SMslow1", "status": "queued"}))
                .set_delay(std::time::Duration::from_millis(1500)),
        )
        .mount(&twilio)
        .await;
    let uri = twilio.uri();
    let app = app_with(move |s| {
        s.providers.sms.provider = "twilio".into();
        s.providers.sms.base_url = uri;
        s.providers.sms.account_sid = "AC9".into();
        s.jobs.batch_runs = 1;
    })
    .await;
    let ws = workspace(&app, "5").await;
    send_sms(&app, &ws.key, "+14155550100", "first").await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let second = send_sms(&app, &ws.key, PERSON, "second").await;
    let res = app
        .post_key(
            "/api/v1/suppressions",
            &ws.key,
            json!({"channel": "sms", "address": PERSON}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let m = wait_status(&app, &ws.key, &second, "failed").await;
    assert_eq!(m["error_code"], "recipient_opted_out", "{m}");
    let second: uuid::Uuid = second.parse().unwrap();
    let mut rows: Vec<(String, i64)> = ledger(&app, &ws.key)
        .await
        .into_iter()
        .filter(|r| r.message_id == Some(second))
        .map(|r| (r.reason, r.amount))
        .collect();
    rows.sort();
    assert_eq!(rows, [("message".into(), -100), ("refund".into(), 100)]);
    let to_person = twilio
        .received_requests()
        .await
        .unwrap()
        .iter()
        .filter(|r| String::from_utf8_lossy(&r.body).contains("4155550123"))
        .count();
    assert_eq!(to_person, 0, "the carrier never saw the opted-out number");
}
