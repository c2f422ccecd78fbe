use super::*;
use serde_json::json;

#[actix_web::test]
async fn sms_send_is_queued_charged_and_delivered_in_the_sandbox() {
    let app = app().await;
    let ws = workspace(&app, "10").await;
    let res = app
        .post_key(
            "/api/v1/messages/send",
            &ws.key,
            json!({"to": "+14155550123", "channel": "sms", "content": {"text": "Hello"},
                   "metadata": {"order": 42, "tag": "promo"}}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let v = json_body(res).await;
    assert_eq!(v["success"], true);
    let d = &v["data"];
    assert_eq!(d["status"], "queued");
    assert_eq!(d["credits_used"], json!(1));
    assert!(d["created_at"].as_str().unwrap().contains('T'));
    let id = d["message_id"].as_str().unwrap();
    let m = wait_status(&app, &ws.key, id, "delivered").await;
    assert_eq!(m["channel"], "sms");
    assert_eq!(m["to"], "+14155550123");
    assert_eq!(m["metadata"], json!({"order": 42, "tag": "promo"}));
    assert_eq!(m["credits_used"], json!(1));
    assert!(m["provider_message_id"].as_str().unwrap().starts_with("SM"));
    assert!(m["sent_at"].is_string() && m["delivered_at"].is_string());
    let out = app.outbox_for("+14155550123");
    assert_eq!(out.len(), 1);
    assert_eq!(out[0]["text"], "Hello");
    assert_eq!(out[0]["provider_message_id"], m["provider_message_id"]);
    assert_eq!(app.balance(&ws.key).await, json!(9));
}

#[actix_web::test]
async fn email_costs_a_tenth_and_is_sent_from_the_mail_domain() {
    let app = app_with(|s| s.services.messaging.mail_domain = "mail.acme.test".into()).await;
    let ws = workspace(&app, "1").await;
    let res = app
        .post_key(
            "/api/v1/messages/send",
            &ws.key,
            json!({"to": "ann@example.com", "channel": "email", "from": "Acme Deals",
                   "content": {"subject": "Your order", "html": "<b>Shipped</b>", "text": "Shipped"}}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let v = json_body(res).await;
    assert_eq!(v["data"]["status"], "queued");
    assert_eq!(v["data"]["credits_used"], json!(0.1));
    let m = message(&app, &ws.key, v["data"]["message_id"].as_str().unwrap()).await;
    assert_eq!(m["from"], "Acme Deals <acme-deals@mail.acme.test>");
    assert_eq!(m["subject"], "Your order");
    assert_eq!(m["html"], "<b>Shipped</b>");
    // Without `from`, the workspace's sender name is used.
    let res = app
        .post_key(
            "/api/v1/messages/send",
            &ws.key,
            json!({"to": "bob@example.com", "channel": "email",
                   "content": {"subject": "Hi", "text": "Plain only"}}),
        )
        .await;
    let v = json_body(res).await;
    let m = message(&app, &ws.key, v["data"]["message_id"].as_str().unwrap()).await;
    assert_eq!(m["from"], "Acme Shop <acme-shop@mail.acme.test>");
    assert_eq!(app.balance(&ws.key).await, json!(0.8));
    // Dispatch runs on the job queue, so the hand-over may still be under way.
    let out = eventually("email outbox", || async {
        app.outbox_for("ann@example.com").pop()
    })
    .await;
    assert_eq!(out["subject"], "Your order");
}

#[actix_web::test]
async fn invalid_sends_are_validation_errors_and_cost_nothing() {
    let app = app().await;
    let ws = workspace(&app, "5").await;
    let cases = [
        sms("14155550123", "no plus"),
        sms("+04155550123", "leading zero"),
        sms("+1415555012345678", "too long"),
        sms("+1 415 555", "spaces"),
        sms("+14155550123", ""),
        sms("+14155550123", &"a".repeat(1601)),
        json!({"to": "+14155550123", "channel": "fax", "content": {"text": "x"}}),
        json!({"to": "+14155550123", "channel": "whatsapp", "content": {"text": "x"}}),
        json!({"to": "+14155550123", "channel": "sms"}),
        json!({"to": "+14155550123", "channel": "sms", "content": {"text": "x"}, "metadata": [1]}),
        json!({"to": "+14155550123", "channel": "sms", "content": {"text": "x"}, "extra": 1}),
        json!({"to": "not-an-email", "channel": "email", "content": {"subject": "s", "text": "t"}}),
        json!({"to": "a@b.co", "channel": "email", "content": {"text": "no subject"}}),
        json!({"to": "a@b.co", "channel": "email", "content": {"subject": "no body"}}),
        json!({"to": "a@b.co", "channel": "email", "from": "", "content": {"subject": "s", "text": "t"}}),
        json!({"channel": "sms", "content": {"text": "no to"}}),
        json!({"to": 12, "channel": "sms", "content": {"text": "x"}}),
    ];
    for body in cases {
        let res = app
            .post_key("/api/v1/messages/send", &ws.key, body.clone())
            .await;
        assert_err(res, 400, "validation_error").await;
    }
    // 1600 characters is the limit, inclusive.
    let res = app
        .post_key(
            "/api/v1/messages/send",
            &ws.key,
            sms("+14155550123", &"a".repeat(1600)),
        )
        .await;
    assert_eq!(res.status(), 402, "11 credits needed, 5 held");
    assert_eq!(app.balance(&ws.key).await, json!(5));
}

#[actix_web::test]
async fn api_key_is_required_and_checked() {
    let app = app().await;
    workspace(&app, "5").await;
    let res = app
        .client
        .post(app.m("/api/v1/messages/send"))
        .json(&sms("+14155550123", "x"))
        .send()
        .await
        .unwrap();
    assert_err(res, 401, "unauthorized").await;
    let res = app
        .post_key(
            "/api/v1/messages/send",
            "sb_wrong",
            sms("+14155550123", "x"),
        )
        .await;
    assert_err(res, 401, "unauthorized").await;
    let res = app.post_key("/api/v1/messages/bulk", "", json!({})).await;
    assert_err(res, 401, "unauthorized").await;
    assert_err(
        app.get_key("/api/v1/messages", "nope").await,
        401,
        "unauthorized",
    )
    .await;
    assert_err(
        app.get_key("/api/v1/webhooks", "nope").await,
        401,
        "unauthorized",
    )
    .await;
}

#[actix_web::test]
async fn framework_errors_use_the_spec_body() {
    let app = app().await;
    let ws = workspace(&app, "5").await;
    assert_err(app.get_key("/nope", &ws.key).await, 404, "not_found").await;
    let res = app
        .client
        .put(app.m("/api/v1/messages/send"))
        .header("X-API-Key", &ws.key)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_err(res, 405, "method_not_allowed").await;
    let res = app
        .client
        .post(app.m("/api/v1/messages/send"))
        .header("X-API-Key", &ws.key)
        .header("content-type", "application/json")
        .body("{\"to\": ")
        .send()
        .await
        .unwrap();
    assert_err(res, 400, "validation_error").await;
    let res = app
        .client
        .post(app.m("/api/v1/messages/send"))
        .header("X-API-Key", &ws.key)
        .header("content-type", "text/plain")
        .body("to=1")
        .send()
        .await
        .unwrap();
    assert_err(res, 415, "unsupported_media_type").await;
    let res = app
        .client
        .post(app.m("/api/v1/messages/bulk"))
        .header("X-API-Key", &ws.key)
        .header("content-type", "application/json")
        .body(vec![b' '; 3 * 1024 * 1024])
        .send()
        .await
        .unwrap();
    assert_err(res, 413, "payload_too_large").await;
}

/// Credits charged per the segment rules, through the API.
#[actix_web::test]
async fn sms_cost_follows_the_segment_table() {
    let app = app().await;
    let ws = workspace(&app, "100").await;
    let cases = [
        ("a".repeat(160), 1),
        ("a".repeat(161), 2),
        ("a".repeat(306), 2),
        ("a".repeat(307), 3),
        ("a".repeat(459), 3),
        ("ж".repeat(70), 1),
        ("ж".repeat(71), 2),
        (format!("{}€{}", "a".repeat(152), "a".repeat(152)), 3),
        (format!("{}😀{}", "ж".repeat(66), "ж".repeat(66)), 3),
        ("{".repeat(80), 1),
        ("{".repeat(81), 2),
    ];
    let mut spent = 0;
    for (text, credits) in cases {
        let res = app
            .post_key("/api/v1/messages/send", &ws.key, sms("+14155550123", &text))
            .await;
        assert_eq!(res.status(), 201);
        let v = json_body(res).await;
        assert_eq!(v["data"]["credits_used"], json!(credits), "{text}");
        spent += credits;
    }
    assert_eq!(app.balance(&ws.key).await, json!(100 - spent));
}

#[actix_web::test]
async fn insufficient_credits_names_needed_and_held() {
    let app = app().await;
    let ws = workspace(&app, "1.5").await;
    let res = app
        .post_key(
            "/api/v1/messages/send",
            &ws.key,
            sms("+14155550123", &"a".repeat(161)),
        )
        .await;
    let v = assert_err(res, 402, "insufficient_credits").await;
    let msg = v["message"].as_str().unwrap();
    assert!(
        msg.contains("2 needed") && msg.contains("1.5 held"),
        "{msg}"
    );
    assert_eq!(app.balance(&ws.key).await, json!(1.5));
    let list = json_body(app.get_key("/api/v1/messages", &ws.key).await).await;
    assert_eq!(list["data"]["pagination"]["total"], 0);
}

#[actix_web::test]
async fn concurrent_sends_never_overdraw() {
    let app = app_with(|s| s.services.messaging.rate_limits.send.limit = 1000).await;
    let ws = workspace(&app, "10").await;
    let sends = (0..30).map(|i| {
        app.post_key(
            "/api/v1/messages/send",
            &ws.key,
            sms("+14155550123", &format!("message {i}")),
        )
    });
    let results = futures_util::future::join_all(sends).await;
    let created = results.iter().filter(|r| r.status() == 201).count();
    let refused = results.iter().filter(|r| r.status() == 402).count();
    assert_eq!((created, refused), (10, 20));
    assert_eq!(app.balance(&ws.key).await, json!(0));
    let list = json_body(app.get_key("/api/v1/messages?limit=100", &ws.key).await).await;
    assert_eq!(list["data"]["pagination"]["total"], 10);
}

#[actix_web::test]
async fn an_idempotency_key_expires_after_24_hours() {
    let app = app().await;
    let ws = workspace(&app, "10").await;
    let send = |text: &'static str| {
        app.client
            .post(app.m("/api/v1/messages/send"))
            .header("X-API-Key", &ws.key)
            .header("Idempotency-Key", "order-7")
            .json(&sms("+14155550123", text))
            .send()
    };
    let first = json_body(send("Hi").await.unwrap()).await;
    // Just inside the day the key still replays (even for another body it is a conflict).
    app.advance(chrono::Duration::hours(24) - chrono::Duration::seconds(5));
    let res = send("Hi").await.unwrap();
    assert_eq!(res.headers()["idempotent-replayed"], "true");
    assert_eq!(json_body(res).await, first);
    // Past it the key is free: a new message, charged again (no purge job has run).
    app.advance(chrono::Duration::seconds(10));
    let res = send("Hello again").await.unwrap();
    assert_eq!(res.status(), 201);
    assert!(res.headers().get("idempotent-replayed").is_none());
    let second = json_body(res).await;
    assert_ne!(second["data"]["message_id"], first["data"]["message_id"]);
    assert_eq!(app.balance(&ws.key).await, json!(8));
}

#[actix_web::test]
async fn idempotency_key_replays_and_charges_once() {
    let app = app().await;
    let ws = workspace(&app, "10").await;
    let send = |key: &'static str, text: &'static str| {
        app.client
            .post(app.m("/api/v1/messages/send"))
            .header("X-API-Key", &ws.key)
            .header("Idempotency-Key", key)
            .json(&sms("+14155550123", text))
            .send()
    };
    let first = send("order-1", "Hi").await.unwrap();
    assert_eq!(first.status(), 201);
    let first = json_body(first).await;
    let again = send("order-1", "Hi").await.unwrap();
    assert_eq!(again.status(), 201);
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    assert_eq!(json_body(again).await, first);
    assert_eq!(app.balance(&ws.key).await, json!(9));
    let other = send("order-1", "Different").await.unwrap();
    assert_err(other, 409, "idempotency_conflict").await;
    // Concurrent repeats of a fresh key: one message, one charge, identical answers.
    let racers = (0..8).map(|_| send("order-2", "Race"));
    let answers = futures_util::future::join_all(racers).await;
    let mut bodies = Vec::new();
    for a in answers {
        let a = a.unwrap();
        assert_eq!(a.status(), 201);
        bodies.push(json_body(a).await);
    }
    assert!(bodies.windows(2).all(|w| w[0] == w[1]));
    assert_eq!(app.balance(&ws.key).await, json!(8));
    let res = app
        .client
        .post(app.m("/api/v1/messages/send"))
        .header("X-API-Key", &ws.key)
        .header("Idempotency-Key", "")
        .json(&sms("+14155550123", "x"))
        .send()
        .await
        .unwrap();
    assert_err(res, 400, "validation_error").await;
}

#[actix_web::test]
async fn send_is_rate_limited_per_workspace() {
    let app = app_with(|s| {
        s.services.messaging.rate_limits.send = switchboard::core::config::LimitSettings::new(2, 60)
    })
    .await;
    let ws = workspace(&app, "10").await;
    let other = workspace(&app, "10").await;
    for _ in 0..2 {
        let res = app
            .post_key("/api/v1/messages/send", &ws.key, sms("+14155550123", "x"))
            .await;
        assert_eq!(res.status(), 201);
        assert!(res.headers().contains_key("x-ratelimit-limit"));
    }
    let res = app
        .post_key("/api/v1/messages/send", &ws.key, sms("+14155550123", "x"))
        .await;
    assert!(res.headers().contains_key("retry-after"));
    assert_err(res, 429, "rate_limit_exceeded").await;
    let res = app
        .post_key(
            "/api/v1/messages/send",
            &other.key,
            sms("+14155550123", "x"),
        )
        .await;
    assert_eq!(res.status(), 201, "another workspace has its own budget");
    app.advance(chrono::Duration::seconds(61));
    let res = app
        .post_key("/api/v1/messages/send", &ws.key, sms("+14155550123", "x"))
        .await;
    assert_eq!(res.status(), 201);
}

#[actix_web::test]
async fn messages_are_listed_filtered_paginated_and_private_to_their_workspace() {
    let app = app_with(|s| s.services.messaging.sandbox_delivery_reports = false).await;
    let ws = workspace(&app, "10").await;
    let other = workspace(&app, "10").await;
    let mut ids = Vec::new();
    for i in 0..3 {
        let v = json_body(
            app.post_key(
                "/api/v1/messages/send",
                &ws.key,
                sms("+14155550123", &format!("m{i}")),
            )
            .await,
        )
        .await;
        ids.push(v["data"]["message_id"].as_str().unwrap().to_owned());
    }
    for id in &ids {
        wait_status(&app, &ws.key, id, "sent").await;
    }
    let page = json_body(
        app.get_key("/api/v1/messages?limit=2&page=1", &ws.key)
            .await,
    )
    .await;
    assert_eq!(page["data"]["messages"].as_array().unwrap().len(), 2);
    assert_eq!(page["data"]["pagination"]["total"], 3);
    assert_eq!(page["data"]["pagination"]["total_pages"], 2);
    let page2 = json_body(
        app.get_key("/api/v1/messages?limit=2&page=2", &ws.key)
            .await,
    )
    .await;
    assert_eq!(page2["data"]["messages"].as_array().unwrap().len(), 1);
    // An offset reads the same list (the page number says where it falls).
    let by_offset = json_body(
        app.get_key("/api/v1/messages?limit=2&offset=2", &ws.key)
            .await,
    )
    .await;
    assert_eq!(by_offset["data"]["messages"], page2["data"]["messages"]);
    assert_eq!(by_offset["data"]["pagination"]["page"], 2);
    assert_err(
        app.get_key("/api/v1/messages?page=2&offset=2", &ws.key)
            .await,
        400,
        "validation_error",
    )
    .await;
    let sent = json_body(app.get_key("/api/v1/messages?status=sent", &ws.key).await).await;
    assert_eq!(sent["data"]["pagination"]["total"], 3);
    let queued = json_body(app.get_key("/api/v1/messages?status=queued", &ws.key).await).await;
    assert_eq!(queued["data"]["pagination"]["total"], 0);
    assert_err(
        app.get_key("/api/v1/messages?status=lost", &ws.key).await,
        400,
        "validation_error",
    )
    .await;
    assert_err(
        app.get_key("/api/v1/messages?limit=0", &ws.key).await,
        400,
        "validation_error",
    )
    .await;
    assert_err(
        app.get_key("/api/v1/messages?page=x", &ws.key).await,
        400,
        "validation_error",
    )
    .await;
    // Another workspace sees none of them.
    let theirs = json_body(app.get_key("/api/v1/messages", &other.key).await).await;
    assert_eq!(theirs["data"]["pagination"]["total"], 0);
    let res = app
        .get_key(&format!("/api/v1/messages/{}", ids[0]), &other.key)
        .await;
    assert_err(res, 404, "not_found").await;
    let res = app
        .get_key(
            &format!("/api/v1/messages/{}", uuid::Uuid::new_v4()),
            &ws.key,
        )
        .await;
    assert_err(res, 404, "not_found").await;
    assert_err(
        app.get_key("/api/v1/messages/not-a-uuid", &ws.key).await,
        400,
        "validation_error",
    )
    .await;
}

#[actix_web::test]
async fn every_charge_is_one_ledger_row_of_minus_the_message_cost() {
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
    use switchboard_entities::messaging::{message as message_row, workspace as workspace_row};
    let app = app_with(|s| s.services.messaging.sandbox_delivery_reports = false).await;
    let ws = workspace(&app, "20").await;
    let email = json!({"to": "ann@example.com", "channel": "email",
                       "content": {"subject": "Hi", "text": "Hello"}});
    let bulk = json!({"channel": "sms", "content": {"text": "Hi {{name}}"},
                      "recipients": [{"to": "+14155550001", "name": "Ann"},
                                     {"to": "+14155550002", "name": "Bob"}]});
    // (path, body, Idempotency-Key, cost of each message in 1/100 credit)
    let requests = [
        (
            "/api/v1/messages/send",
            sms("+14155550123", "Hello"),
            None,
            100,
        ),
        (
            "/api/v1/messages/send",
            sms("+14155550123", &"a".repeat(161)),
            None,
            200,
        ),
        ("/api/v1/messages/send", email, None, 10),
        ("/api/v1/messages/bulk", bulk, None, 100),
        (
            "/api/v1/messages/send",
            sms("+14155550124", "Once"),
            Some("k1"),
            100,
        ),
        (
            "/api/v1/messages/send",
            sms("+14155550124", "Once"),
            Some("k1"),
            100,
        ),
    ];
    let mut expected: std::collections::BTreeMap<String, i64> = Default::default();
    let mut first_sms = None;
    for (path, body, idem, cost) in requests {
        let mut req = app
            .client
            .post(app.m(path))
            .header("X-API-Key", &ws.key)
            .json(&body);
        if let Some(k) = idem {
            req = req.header("Idempotency-Key", k);
        }
        let res = req.send().await.unwrap();
        assert_eq!(res.status(), 201, "{body}");
        let d = json_body(res).await["data"].clone();
        let ids: Vec<String> = match d["message_ids"].as_array() {
            Some(ids) => ids.iter().map(|i| i.as_str().unwrap().to_owned()).collect(),
            None => vec![d["message_id"].as_str().unwrap().to_owned()],
        };
        first_sms.get_or_insert_with(|| ids[0].clone());
        for id in ids {
            expected.insert(id, cost);
        }
    }
    // Refused for want of credits: no row.
    let res = app
        .post_key(
            "/api/v1/messages/send",
            &ws.key,
            sms("+14155550123", &"ж".repeat(1600)),
        )
        .await;
    assert_err(res, 402, "insufficient_credits").await;
    // A failure the carrier reports after accepting is not refunded (docs/decisions.md).
    let failed = first_sms.unwrap();
    let sid = wait_status(&app, &ws.key, &failed, "sent").await["provider_message_id"]
        .as_str()
        .unwrap()
        .to_owned();
    carrier_post(
        &app,
        "/carrier/status",
        &[("MessageSid", &sid), ("MessageStatus", "failed")],
    )
    .await;
    assert_eq!(message(&app, &ws.key, &failed).await["status"], "failed");

    assert_eq!(
        expected.len(),
        6,
        "five requests, one replayed, six messages"
    );
    let rows = ledger(&app, &ws.key).await;
    let db = db(&app).await;
    let messages = message_row::Entity::find()
        .filter(message_row::Column::WorkspaceId.eq(ws.id))
        .all(&db)
        .await
        .unwrap();
    assert_eq!(messages.len(), expected.len());
    for m in &messages {
        let of_message: Vec<_> = rows.iter().filter(|r| r.message_id == Some(m.id)).collect();
        assert_eq!(of_message.len(), 1, "one row for {}: {of_message:?}", m.id);
        assert_eq!(of_message[0].reason, "message");
        assert_eq!(of_message[0].amount, -m.cost);
        assert_eq!(m.cost, expected[&m.id.to_string()], "{}", m.id);
    }
    // Besides those, only the opening grant; together they make the balance.
    let others: Vec<_> = rows.iter().filter(|r| r.message_id.is_none()).collect();
    assert_eq!(others.len(), 1, "{others:?}");
    assert_eq!(
        (others[0].reason.as_str(), others[0].amount),
        ("grant", 2000)
    );
    let balance = workspace_row::Entity::find_by_id(ws.id)
        .one(&db)
        .await
        .unwrap()
        .unwrap()
        .credits_balance;
    assert_eq!(rows.iter().map(|r| r.amount).sum::<i64>(), balance);
    assert_eq!(balance, 2000 - 610);
    assert_eq!(app.balance(&ws.key).await, json!(13.9));
    db.close().await.ok();
}
