use super::*;
use serde_json::json;

#[actix_web::test]
async fn bulk_personalises_counts_failures_and_charges_each_message() {
    let app = app().await;
    let ws = workspace(&app, "20").await;
    let res = app
        .post_key(
            "/api/v1/messages/bulk",
            &ws.key,
            json!({
                "channel": "sms",
                "content": {"text": "Hi {{name}}, your code is {{ code }}"},
                "metadata": {"campaign": "spring"},
                "recipients": [
                    {"to": "+14155550001", "name": "Ann", "code": 1234},
                    {"to": "+14155550002", "name": "Bob", "code": "X9"},
                    {"to": "4155550003", "name": "Bad number", "code": 1},
                    {"to": "+14155550004", "name": "No code"},
                    {"to": "+14155550005", "name": "Long", "code": "z".repeat(200)},
                ]
            }),
        )
        .await;
    assert_eq!(res.status(), 201);
    let v = json_body(res).await;
    let d = &v["data"];
    assert_eq!(d["queued"], 3);
    assert_eq!(d["failed"], 2);
    assert_eq!(d["message_ids"].as_array().unwrap().len(), 3);
    // 1 + 1 + 2 segments (the long code makes a concatenated message).
    assert_eq!(d["credits_used"], json!(4));
    let failures = d["failures"].as_array().unwrap();
    assert_eq!(failures[0]["index"], 2);
    assert!(failures[0]["reason"].as_str().unwrap().contains("phone"));
    assert_eq!(failures[1]["index"], 3);
    assert!(failures[1]["reason"].as_str().unwrap().contains("code"));
    assert_eq!(app.balance(&ws.key).await, json!(16));
    for id in d["message_ids"].as_array().unwrap() {
        let m = wait_status(&app, &ws.key, id.as_str().unwrap(), "delivered").await;
        assert_eq!(m["metadata"], json!({"campaign": "spring"}));
    }
    assert_eq!(
        app.outbox_for("+14155550001")[0]["text"],
        "Hi Ann, your code is 1234"
    );
    assert_eq!(
        app.outbox_for("+14155550002")[0]["text"],
        "Hi Bob, your code is X9"
    );
    assert!(app.outbox_for("+14155550004").is_empty());
}

#[actix_web::test]
async fn malformed_recipient_lists_reject_the_whole_request() {
    let app = app().await;
    let ws = workspace(&app, "2000").await;
    let many: Vec<_> = (0..1001)
        .map(|i| json!({"to": format!("+1415555{i:04}")}))
        .collect();
    let cases = [
        json!({"channel": "sms", "content": {"text": "x"},
               "recipients": [{"to": "+14155550001"}, {"name": "no to"}]}),
        json!({"channel": "sms", "content": {"text": "x"}, "recipients": [{"to": 5}]}),
        json!({"channel": "sms", "content": {"text": "x"}, "recipients": many}),
        json!({"channel": "sms", "content": {"text": "x"}, "recipients": []}),
        json!({"channel": "sms", "content": {}, "recipients": [{"to": "+14155550001"}]}),
        json!({"channel": "pigeon", "content": {"text": "x"}, "recipients": [{"to": "+14155550001"}]}),
        json!({"channel": "sms", "content": {"text": "x"}}),
    ];
    for body in cases {
        let res = app.post_key("/api/v1/messages/bulk", &ws.key, body).await;
        assert_err(res, 400, "validation_error").await;
    }
    assert_eq!(app.balance(&ws.key).await, json!(2000));
}

#[actix_web::test]
async fn a_type_error_names_the_field_at_fault() {
    let app = app().await;
    let ws = workspace(&app, "10").await;
    let res = app
        .post_key(
            "/api/v1/messages/bulk",
            &ws.key,
            json!({"channel": "sms", "content": {"text": "x", "subject": 5},
                   "recipients": [{"to": "+14155550001"}]}),
        )
        .await;
    let v = assert_err(res, 400, "validation_error").await;
    let message = v["message"].as_str().unwrap();
    assert!(message.contains("content.subject"), "{message}");
    assert!(!message.contains("line 1"), "{message}");
}

#[actix_web::test]
async fn a_thousand_recipients_are_accepted() {
    let app = app().await;
    let ws = workspace(&app, "1000").await;
    let recipients: Vec<_> = (0..1000)
        .map(|i| json!({"to": format!("+1415555{i:04}"), "n": i}))
        .collect();
    let res = app
        .post_key(
            "/api/v1/messages/bulk",
            &ws.key,
            json!({"channel": "sms", "content": {"text": "You are number {{n}}"}, "recipients": recipients}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let v = json_body(res).await;
    assert_eq!(v["data"]["queued"], 1000);
    assert_eq!(v["data"]["failed"], 0);
    assert_eq!(app.balance(&ws.key).await, json!(0));
    let total = json_body(app.get_key("/api/v1/messages?limit=1", &ws.key).await).await;
    assert_eq!(total["data"]["pagination"]["total"], 1000);
}

#[actix_web::test]
async fn bulk_is_all_or_nothing_when_credits_run_short() {
    let app = app().await;
    let ws = workspace(&app, "2").await;
    let res = app
        .post_key(
            "/api/v1/messages/bulk",
            &ws.key,
            json!({"channel": "sms", "content": {"text": "x"},
                   "recipients": [{"to": "+14155550001"}, {"to": "+14155550002"}, {"to": "+14155550003"}]}),
        )
        .await;
    let v = assert_err(res, 402, "insufficient_credits").await;
    assert!(v["message"].as_str().unwrap().contains("3 needed, 2 held"));
    assert_eq!(app.balance(&ws.key).await, json!(2));
    assert!(app.outbox_for("+14155550001").is_empty());
}

#[actix_web::test]
async fn bulk_sends_email_whatsapp_and_voice() {
    let app = app().await;
    let ws = workspace(&app, "10").await;
    let res = app
        .post_key(
            "/api/v1/messages/bulk",
            &ws.key,
            json!({"channel": "email", "from": "Acme",
                   "content": {"subject": "Hello {{name}}", "text": "Dear {{name}}", "html": "<p>{{name}}</p>"},
                   "recipients": [{"to": "ann@example.com", "name": "Ann"}, {"to": "not-mail", "name": "X"}]}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let v = json_body(res).await;
    assert_eq!(
        (v["data"]["queued"].clone(), v["data"]["failed"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(v["data"]["credits_used"], json!(0.1));
    let id = v["data"]["message_ids"][0].as_str().unwrap();
    let m = wait_status(&app, &ws.key, id, "delivered").await;
    assert_eq!(m["subject"], "Hello Ann");
    assert_eq!(m["html"], "<p>Ann</p>");
    assert_eq!(app.outbox_for("ann@example.com")[0]["subject"], "Hello Ann");

    let res = app
        .post_key(
            "/api/v1/messages/bulk",
            &ws.key,
            json!({"channel": "whatsapp", "content": {"text": "Hola {{name}}"},
                   "recipients": [{"to": "+5215512345678", "name": "Eva"}]}),
        )
        .await;
    let v = json_body(res).await;
    assert_eq!(v["data"]["credits_used"], json!(0.5));
    let out = eventually("whatsapp outbox", || async {
        app.outbox_for("+5215512345678").pop()
    })
    .await;
    assert_eq!(out["channel"], "whatsapp");
    assert_eq!(out["text"], "Hola Eva");

    let res = app
        .post_key(
            "/api/v1/messages/bulk",
            &ws.key,
            json!({"channel": "voice", "content": {"text": "Your code is {{code}}"},
                   "recipients": [{"to": "+4930123456", "code": "1 2 3"}]}),
        )
        .await;
    let v = json_body(res).await;
    assert_eq!(v["data"]["credits_used"], json!(2));
    let id = v["data"]["message_ids"][0].as_str().unwrap();
    let m = wait_status(&app, &ws.key, id, "delivered").await;
    assert!(m["provider_message_id"].as_str().unwrap().starts_with("CA"));
    assert_eq!(app.outbox_for("+4930123456")[0]["channel"], "voice");
    // 10 - 0.1 - 0.5 - 2
    assert_eq!(app.balance(&ws.key).await, json!(7.4));
}

#[actix_web::test]
async fn bulk_is_limited_to_ten_requests_per_five_minutes() {
    let app = app().await;
    let ws = workspace(&app, "100").await;
    let body =
        json!({"channel": "sms", "content": {"text": "x"}, "recipients": [{"to": "+14155550001"}]});
    for _ in 0..10 {
        let res = app
            .post_key("/api/v1/messages/bulk", &ws.key, body.clone())
            .await;
        assert_eq!(res.status(), 201);
    }
    let res = app
        .post_key("/api/v1/messages/bulk", &ws.key, body.clone())
        .await;
    assert_eq!(res.headers()["x-ratelimit-limit"], "10");
    assert_err(res, 429, "rate_limit_exceeded").await;
    app.advance(chrono::Duration::minutes(5));
    let res = app.post_key("/api/v1/messages/bulk", &ws.key, body).await;
    assert_eq!(res.status(), 201);
}

#[actix_web::test]
async fn bulk_idempotency_key_replays() {
    let app = app().await;
    let ws = workspace(&app, "10").await;
    let body = json!({"channel": "sms", "content": {"text": "x"},
                      "recipients": [{"to": "+14155550001"}, {"to": "+14155550002"}]});
    let post = |b: serde_json::Value| {
        app.client
            .post(app.m("/api/v1/messages/bulk"))
            .header("X-API-Key", &ws.key)
            .header("Idempotency-Key", "bulk-7")
            .json(&b)
            .send()
    };
    let a = json_body(post(body.clone()).await.unwrap()).await;
    let b = json_body(post(body.clone()).await.unwrap()).await;
    assert_eq!(a, b);
    assert_eq!(app.balance(&ws.key).await, json!(8));
    let mut changed = body.clone();
    changed["content"]["text"] = json!("y");
    assert_err(post(changed).await.unwrap(), 409, "idempotency_conflict").await;
}

/// The test process's peak resident memory (VmHWM), in KiB. The server runs in this
/// process, so whatever a request makes it allocate shows here.
fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/self/status")
}

#[actix_web::test]
async fn a_megabyte_template_of_placeholders_is_refused_before_rendering() {
    let app = app().await;
    let ws = workspace(&app, "0").await;
    // 1,000,000 bytes of {{a}} with a 1,000,000-byte value: rendered in full that would be
    // 200 GB; the body stays under the 2 MiB JSON limit.
    let body = json!({
        "channel": "sms",
        "content": {"text": "{{a}}".repeat(200_000)},
        "recipients": [{"to": "+14155550001", "a": "x".repeat(1_000_000)}],
    });
    let before = peak_rss_kib();
    let started = std::time::Instant::now();
    let res = app.post_key("/api/v1/messages/bulk", &ws.key, body).await;
    let elapsed = started.elapsed();
    let v = assert_err(res, 400, "validation_error").await;
    assert!(
        v["message"].as_str().unwrap().contains("longer than 1600"),
        "{v}"
    );
    let grown_mib = (peak_rss_kib() - before) / 1024;
    eprintln!("refused in {elapsed:?}; peak RSS grew by {grown_mib} MiB");
    assert!(elapsed < std::time::Duration::from_secs(5), "{elapsed:?}");
    assert!(grown_mib < 256, "peak RSS grew by {grown_mib} MiB");
}

#[actix_web::test]
async fn rendering_stops_at_the_channel_limit() {
    let app = app().await;
    let ws = workspace(&app, "0").await;
    // Within the caps (1600 characters, 256 placeholders), but each placeholder is 1 MB.
    let body = json!({
        "channel": "sms",
        "content": {"text": "{{a}}".repeat(256)},
        "recipients": [{"to": "+14155550001", "a": "x".repeat(1_000_000)}],
    });
    let before = peak_rss_kib();
    let res = app.post_key("/api/v1/messages/bulk", &ws.key, body).await;
    assert_eq!(res.status(), 201);
    let v = json_body(res).await;
    assert_eq!(v["data"]["queued"], 0);
    assert_eq!(v["data"]["failed"], 1);
    let reason = v["data"]["failures"][0]["reason"].as_str().unwrap();
    assert!(reason.contains("longer than 1600 characters"), "{reason}");
    let grown_mib = (peak_rss_kib() - before) / 1024;
    eprintln!("peak RSS grew by {grown_mib} MiB (256 MB if rendered in full)");
    assert!(grown_mib < 128, "peak RSS grew by {grown_mib} MiB");
}

#[actix_web::test]
async fn too_many_placeholders_are_refused_before_rendering() {
    let app = app().await;
    let ws = workspace(&app, "10").await;
    let res = app
        .post_key(
            "/api/v1/messages/bulk",
            &ws.key,
            json!({
                "channel": "email",
                "content": {"subject": "Hi", "text": "{{a}}".repeat(257)},
                "recipients": [{"to": "ann@example.com", "a": "x"}],
            }),
        )
        .await;
    let v = assert_err(res, 400, "validation_error").await;
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("more than 256 placeholders"),
        "{v}"
    );
}

#[actix_web::test]
async fn one_request_renders_at_most_max_bulk_rendered_bytes() {
    let app = app_with(|s| s.services.messaging.max_bulk_rendered_bytes = 10_000).await;
    let ws = workspace(&app, "0").await;
    let recipients: Vec<_> = (0..10)
        .map(|i| json!({"to": format!("ann{i}@example.com"), "a": "x".repeat(1500)}))
        .collect();
    let res = app
        .post_key(
            "/api/v1/messages/bulk",
            &ws.key,
            json!({"channel": "email", "content": {"subject": "Hi", "text": "{{a}}"}, "recipients": recipients}),
        )
        .await;
    let v = assert_err(res, 400, "validation_error").await;
    assert!(
        v["message"].as_str().unwrap().contains("smaller requests"),
        "{v}"
    );
}
