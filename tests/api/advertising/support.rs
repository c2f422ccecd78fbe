//! Support tickets, and the notification jobs (push and WhatsApp) against the outbox and
//! fake providers.

use super::*;
use crate::helpers::TestApp;
use crate::providers::push::{grant_tokens, use_fake_fcm, SEND_PATH};
use chrono::Duration;
use serde_json::json;
use switchboard::core::jobs::{JobId, NewJob};
use switchboard_entities::core::job;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn ticket_body() -> Value {
    json!({
        "subject": "My payout is late",
        "category": "payments",
        "message": "I withdrew on Monday.\nNothing arrived yet.",
        "screenshotUrl": "https://cdn.example.com/s.png",
    })
}

/// Opens a ticket for `token`; answers its detail.
async fn open_ticket(app: &TestApp, token: &str, body: Value) -> Value {
    data(post(app, "/support-tickets", Some(token), body).await).await
}

#[actix_web::test]
async fn a_poster_opens_answers_reads_and_closes_a_ticket() {
    let app = app().await;
    let token = poster(&app).await;
    let t = open_ticket(&app, &token, ticket_body()).await;
    assert_eq!(t["subject"], "My payout is late");
    assert_eq!(t["category"], "payments");
    assert_eq!(t["screenshotUrl"], "https://cdn.example.com/s.png");
    assert_eq!(t["status"], "open");
    assert!(t["closedAt"].is_null(), "{t}");
    assert_eq!(t["messages"].as_array().unwrap().len(), 1, "{t}");
    assert_eq!(
        t["messages"][0]["message"],
        "I withdrew on Monday.\nNothing arrived yet."
    );
    assert_eq!(t["messages"][0]["authorKind"], "poster");
    let id = t["id"].as_str().unwrap().to_owned();

    // Two more messages at the same instant (the clock is frozen) still read in order.
    app.clock.freeze();
    for text in ["Any news?", "  Still waiting.  "] {
        let m = data(
            post(
                &app,
                &format!("/support-tickets/{id}/messages"),
                Some(&token),
                json!({"message": text}),
            )
            .await,
        )
        .await;
        assert_eq!(m["message"], text.trim());
        assert_eq!(m["authorKind"], "poster");
    }
    let got = data(get(&app, &format!("/support-tickets/{id}"), Some(&token)).await).await;
    let texts: Vec<_> = got["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["message"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        texts,
        [
            "I withdrew on Monday.\nNothing arrived yet.",
            "Any news?",
            "Still waiting."
        ]
    );

    app.advance(Duration::minutes(5));
    let closed = data(
        post(
            &app,
            &format!("/support-tickets/{id}/close"),
            Some(&token),
            json!({}),
        )
        .await,
    )
    .await;
    assert_eq!(closed["status"], "closed");
    assert_eq!(closed["messages"].as_array().unwrap().len(), 3);
    let closed_at = closed["closedAt"].clone();
    assert!(closed_at.is_string(), "{closed}");

    // Closing again answers the ticket as it is: the first close stands.
    app.advance(Duration::minutes(5));
    let again = data(
        call(
            &app,
            Method::POST,
            &format!("/support-tickets/{id}/close"),
            Some(&token),
            None,
        )
        .await,
    )
    .await;
    assert_eq!(again["status"], "closed");
    assert_eq!(again["closedAt"], closed_at);

    refused(
        post(
            &app,
            &format!("/support-tickets/{id}/messages"),
            Some(&token),
            json!({"message": "Hello?"}),
        )
        .await,
        409,
        "ticket_closed",
    )
    .await;
    let got = data(get(&app, &format!("/support-tickets/{id}"), Some(&token)).await).await;
    assert_eq!(got["messages"].as_array().unwrap().len(), 3, "{got}");
}

#[actix_web::test]
async fn a_thread_reads_in_order_when_a_later_message_comes_from_a_clock_behind() {
    let app = app().await;
    app.clock.freeze();
    let token = poster(&app).await;
    let t = open_ticket(&app, &token, ticket_body()).await;
    let id = t["id"].as_str().unwrap();
    let messages = format!("/support-tickets/{id}/messages");
    // A node whose clock is ten minutes behind writes the next messages.
    app.advance(Duration::minutes(-10));
    for text in ["second", "third"] {
        data(post(&app, &messages, Some(&token), json!({"message": text})).await).await;
    }
    let got = data(get(&app, &format!("/support-tickets/{id}"), Some(&token)).await).await;
    let thread = got["messages"].as_array().unwrap();
    let texts: Vec<_> = thread
        .iter()
        .map(|m| m["message"].as_str().unwrap())
        .collect();
    assert_eq!(texts[1..], ["second", "third"], "{got}");
    let times: Vec<chrono::DateTime<chrono::Utc>> = thread
        .iter()
        .map(|m| m["createdAt"].as_str().unwrap().parse().unwrap())
        .collect();
    assert!(times.windows(2).all(|w| w[0] < w[1]), "{times:?}");
}

#[actix_web::test]
async fn messages_racing_a_close_are_either_in_the_thread_or_refused() {
    let app = app().await;
    let token = poster(&app).await;
    let t = open_ticket(&app, &token, ticket_body()).await;
    let id = t["id"].as_str().unwrap();
    let messages = format!("/support-tickets/{id}/messages");
    let close = format!("/support-tickets/{id}/close");
    let adds = (0..12).map(|n| {
        post(
            &app,
            &messages,
            Some(&token),
            json!({"message": format!("m{n}")}),
        )
    });
    let (added, closed) = futures_util::join!(
        futures_util::future::join_all(adds),
        post(&app, &close, Some(&token), json!({}))
    );
    let closed = data(closed).await;
    let mut accepted = Vec::new();
    for res in added {
        match res.status().as_u16() {
            200 => accepted.push(data(res).await["message"].clone()),
            _ => {
                refused(res, 409, "ticket_closed").await;
            }
        }
    }
    let got = data(get(&app, &format!("/support-tickets/{id}"), Some(&token)).await).await;
    let thread: Vec<_> = got["messages"].as_array().unwrap()[1..]
        .iter()
        .map(|m| m["message"].clone())
        .collect();
    assert_eq!(thread.len(), accepted.len(), "{got}");
    assert!(accepted.iter().all(|m| thread.contains(m)), "{got}");
    assert_eq!(got["closedAt"], closed["closedAt"]);
}

#[actix_web::test]
async fn tickets_list_newest_first_by_page_and_status() {
    let app = app().await;
    let token = poster(&app).await;
    let mut ids = Vec::new();
    for n in 1..=3 {
        let mut body = ticket_body();
        body["subject"] = json!(format!("Ticket {n}"));
        body.as_object_mut().unwrap().remove("screenshotUrl");
        let t = open_ticket(&app, &token, body).await;
        assert!(t["screenshotUrl"].is_null(), "{t}");
        ids.push(t["id"].as_str().unwrap().to_owned());
        app.advance(Duration::seconds(10));
    }
    let first = data(get(&app, "/support-tickets?limit=2", Some(&token)).await).await;
    assert_eq!(
        (&first["page"], &first["limit"], &first["total"]),
        (&json!(1), &json!(2), &json!(3))
    );
    let subjects = |list: &Value| -> Vec<String> {
        list["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["subject"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(subjects(&first), ["Ticket 3", "Ticket 2"]);
    assert!(first["items"][0].get("messages").is_none(), "{first}");
    let second = data(get(&app, "/support-tickets?limit=2&page=2", Some(&token)).await).await;
    assert_eq!(subjects(&second), ["Ticket 1"]);

    data(
        post(
            &app,
            &format!("/support-tickets/{}/close", ids[1]),
            Some(&token),
            json!({}),
        )
        .await,
    )
    .await;
    let closed = data(get(&app, "/support-tickets?status=closed", Some(&token)).await).await;
    assert_eq!(subjects(&closed), ["Ticket 2"]);
    let open = data(get(&app, "/support-tickets?status=open", Some(&token)).await).await;
    assert_eq!(subjects(&open), ["Ticket 3", "Ticket 1"]);

    for (query, field) in [
        ("status=pending", "status"),
        ("limit=101", "limit"),
        ("limit=0", "limit"),
    ] {
        let res = get(&app, &format!("/support-tickets?{query}"), Some(&token)).await;
        let err = refused(res, 400, "validation_error").await;
        assert!(err.to_string().contains(field), "{query}: {err}");
    }
}

#[actix_web::test]
async fn bad_ticket_input_is_refused_naming_the_field() {
    let app = app().await;
    let token = poster(&app).await;
    let with = |key: &str, value: Value| {
        let mut body = ticket_body();
        body[key] = value;
        body
    };
    let without = |key: &str| {
        let mut body = ticket_body();
        body.as_object_mut().unwrap().remove(key);
        body
    };
    let cases = [
        (without("subject"), "subject"),
        (without("category"), "category"),
        (without("message"), "message"),
        (with("subject", json!("   ")), "subject"),
        (with("subject", json!("x".repeat(201))), "subject"),
        (with("subject", json!("two\nlines")), "subject"),
        (with("category", json!("c".repeat(51))), "category"),
        (with("message", json!("m".repeat(5001))), "message"),
        (
            with("screenshotUrl", json!("http://cdn.example.com/s.png")),
            "screenshotUrl",
        ),
        (with("screenshotUrl", json!("")), "screenshotUrl"),
        (with("subject", json!(5)), "subject"),
        (with("priority", json!("high")), "priority"),
    ];
    for (body, field) in cases {
        let res = post(&app, "/support-tickets", Some(&token), body.clone()).await;
        let err = refused(res, 400, "validation_error").await;
        assert!(
            err["details"]["field"] == field || err["error"].as_str().unwrap().contains(field),
            "{body}: {err}"
        );
    }
    // The longest of each is taken.
    let longest = json!({
        "subject": "s".repeat(200),
        "category": "c".repeat(50),
        "message": "m".repeat(5000),
        "screenshotUrl": null,
    });
    let t = open_ticket(&app, &token, longest).await;
    let id = t["id"].as_str().unwrap();
    assert_eq!(
        data(get(&app, "/support-tickets", Some(&token)).await).await["total"],
        1
    );
    let messages = format!("/support-tickets/{id}/messages");
    for (body, field) in [
        (json!({}), "message"),
        (json!({"message": ""}), "message"),
        (json!({"message": "m".repeat(5001)}), "message"),
        (json!({"message": ["a"]}), "message"),
        (json!({"message": "hi", "attachment": "x"}), "attachment"),
    ] {
        let err = refused(
            post(&app, &messages, Some(&token), body.clone()).await,
            400,
            "validation_error",
        )
        .await;
        assert!(err.to_string().contains(field), "{body}: {err}");
    }
}

#[actix_web::test]
async fn only_the_owner_reaches_a_ticket_and_only_with_a_token() {
    let app = app().await;
    let (owner, other) = (poster(&app).await, poster(&app).await);
    let id = open_ticket(&app, &owner, ticket_body()).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let paths = [
        format!("/support-tickets/{id}"),
        format!("/support-tickets/{id}/messages"),
        format!("/support-tickets/{id}/close"),
    ];
    let attempts = |token: Option<String>| {
        let app = &app;
        let paths = paths.clone();
        async move {
            let t = token.as_deref();
            vec![
                get(app, &paths[0], t).await,
                post(app, &paths[1], t, json!({"message": "mine now"})).await,
                post(app, &paths[2], t, json!({})).await,
            ]
        }
    };
    for res in attempts(Some(other.clone())).await {
        refused(res, 404, "ticket_not_found").await;
    }
    assert_eq!(
        data(get(&app, "/support-tickets", Some(&other)).await).await["total"],
        0
    );
    for bad in ["not-a-uuid", &uuid::Uuid::new_v4().to_string()] {
        refused(
            get(&app, &format!("/support-tickets/{bad}"), Some(&owner)).await,
            404,
            "ticket_not_found",
        )
        .await;
    }
    for res in attempts(None).await {
        refused(res, 401, "unauthorized").await;
    }
    for res in [
        get(&app, "/support-tickets", None).await,
        post(&app, "/support-tickets", None, ticket_body()).await,
        get(&app, "/support-tickets", Some("not.a.token")).await,
    ] {
        refused(res, 401, "unauthorized").await;
    }
    // Nothing the others tried reached the ticket.
    let t = data(get(&app, &paths[0], Some(&owner)).await).await;
    assert_eq!(t["status"], "open");
    assert_eq!(t["messages"].as_array().unwrap().len(), 1);
}

// Notifications: no endpoint sends one yet (videos and screenshots will), so these queue the
// jobs with their documented payloads and run them.

async fn db(app: &TestApp) -> sea_orm::DatabaseConnection {
    sea_orm::Database::connect(&app.settings.database.url)
        .await
        .unwrap()
}

/// Queues a job and runs whatever is due; answers the job's row after its run.
async fn run_job(app: &TestApp, topic: &str, payload: Value) -> job::Model {
    use sea_orm::EntityTrait;
    let db = db(app).await;
    let id: JobId = app
        .jobs
        .enqueue(&db, NewJob::new(topic, payload))
        .await
        .unwrap()
        .expect("queued");
    app.jobs.run_due().await.unwrap();
    job::Entity::find_by_id(id.0)
        .one(&db)
        .await
        .unwrap()
        .unwrap()
}

/// A poster with the device token `device`: (token, poster id).
async fn poster_with_device(app: &TestApp, device: &str) -> (String, String) {
    let (token, user) = sign_in(app, &phone()).await;
    data(
        post(
            app,
            "/device-token",
            Some(&token),
            json!({"token": device, "platform": "android"}),
        )
        .await,
    )
    .await;
    (token, user["id"].as_str().unwrap().to_owned())
}

fn push_payload(poster_id: &str) -> Value {
    json!({
        "poster_id": poster_id,
        "kind": "video_ready",
        "title": "Your video is ready",
        "body": "Post it and earn $1.50",
        "data": {"subscriptionId": "42"},
    })
}

#[actix_web::test]
async fn notification_jobs_land_in_the_outbox() {
    let app = app().await;
    let device = format!("device-{}", uuid::Uuid::new_v4().simple());
    let (_, poster_id) = poster_with_device(&app, &device).await;
    let row = run_job(&app, "push-notification", push_payload(&poster_id)).await;
    assert_eq!(row.status.as_str(), "done", "{:?}", row.last_error);
    let pushes = app.outbox_for(&device);
    assert_eq!(pushes.len(), 1, "{pushes:?}");
    let line = &pushes[0];
    assert_eq!(line["channel"], "push");
    assert_eq!(line["subject"], "Your video is ready");
    assert_eq!(line["text"], "Post it and earn $1.50");
    assert_eq!(line["service"], "advertising");
    assert_eq!(
        line["details"],
        json!({"platform": "android", "data": {"kind": "video_ready", "subscriptionId": "42"}})
    );

    let to = phone();
    let body = "Screenshot approved\n$1.50 is in your balance";
    let row = run_job(
        &app,
        "whatsapp-message",
        json!({"to": to, "body": body, "kind": "screenshot_approved"}),
    )
    .await;
    assert_eq!(row.status.as_str(), "done", "{:?}", row.last_error);
    let sent = app.outbox_for(&to);
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0]["channel"], "whatsapp");
    assert_eq!(sent[0]["text"], body);
    assert_eq!(sent[0]["message_id"], row.id.to_string());

    // A poster without a device token gets no push; the job still ends.
    let (_, user) = sign_in(&app, &phone()).await;
    let lines = std::fs::read_to_string(&app.outbox)
        .unwrap()
        .lines()
        .count();
    let row = run_job(
        &app,
        "push-notification",
        push_payload(user["id"].as_str().unwrap()),
    )
    .await;
    assert_eq!(row.status.as_str(), "done");
    assert_eq!(
        std::fs::read_to_string(&app.outbox)
            .unwrap()
            .lines()
            .count(),
        lines
    );

    // A payload that does not parse never will.
    let row = run_job(&app, "whatsapp-message", json!({"to": 5})).await;
    assert_eq!(row.status.as_str(), "dead");
}

#[actix_web::test]
async fn a_device_token_fcm_no_longer_knows_is_deleted() {
    let fake = MockServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let app = app_with(|s| use_fake_fcm(&mut s.providers, &fake, dir.path())).await;
    grant_tokens(&fake, "ya29.support", 1..).await;
    Mock::given(method("POST"))
        .and(path(SEND_PATH))
        .respond_with(ResponseTemplate::new(404).set_body_json(json!({"error": {
            "code": 404,
            "status": "NOT_FOUND",
            "message": "Requested entity was not found.",
            "details": [{
                "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
                "errorCode": "UNREGISTERED",
            }],
        }})))
        .expect(1)
        .mount(&fake)
        .await;
    let (token, poster_id) = poster_with_device(&app, "stale-device").await;
    let row = run_job(&app, "push-notification", push_payload(&poster_id)).await;
    assert_eq!(row.status.as_str(), "done", "{:?}", row.last_error);
    let sent = fake.received_requests().await.unwrap();
    let send = sent.iter().find(|r| r.url.path() == SEND_PATH).unwrap();
    let body: Value = serde_json::from_slice(&send.body).unwrap();
    assert_eq!(body["message"]["token"], "stale-device");
    assert_eq!(
        body["message"]["notification"]["title"],
        "Your video is ready"
    );
    assert_eq!(body["message"]["data"]["kind"], "video_ready");
    refused(
        call(&app, Method::DELETE, "/device-token", Some(&token), None).await,
        404,
        "device_token_not_found",
    )
    .await;
}

#[actix_web::test]
async fn fcm_outages_retry_and_refusals_end_the_push() {
    let fake = MockServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let app = app_with(|s| use_fake_fcm(&mut s.providers, &fake, dir.path())).await;
    app.clock.freeze();
    grant_tokens(&fake, "ya29.support", 1..).await;
    let (token, poster_id) = poster_with_device(&app, "live-device").await;
    Mock::given(method("POST"))
        .and(path(SEND_PATH))
        .respond_with(ResponseTemplate::new(503).insert_header("retry-after", "120"))
        .up_to_n_times(1)
        .mount(&fake)
        .await;
    let row = run_job(&app, "push-notification", push_payload(&poster_id)).await;
    assert_eq!(row.status.as_str(), "queued", "{:?}", row.last_error);
    assert_eq!(row.run_at, app.now() + Duration::seconds(120));
    Mock::given(method("POST"))
        .and(path(SEND_PATH))
        .respond_with(ResponseTemplate::new(400).set_body_json(
            json!({"error": {"code": 400, "status": "INVALID_ARGUMENT", "message": "bad"}}),
        ))
        .mount(&fake)
        .await;
    let row = run_job(&app, "push-notification", push_payload(&poster_id)).await;
    assert_eq!(row.status.as_str(), "dead", "{:?}", row.last_error);
    // Neither answer cost the poster their device token.
    data(call(&app, Method::DELETE, "/device-token", Some(&token), None).await).await;
}

#[actix_web::test]
async fn whatsapp_jobs_go_through_the_cloud_api_when_configured() {
    let fake = MockServer::start().await;
    let app = app_with(|s| {
        let w = &mut s.providers.whatsapp;
        w.provider = "cloud_api".into();
        w.base_url = fake.uri();
        w.phone_number_id = "1234".into();
        w.access_token = "wa-token".into();
    })
    .await;
    app.clock.freeze();
    let url = "/v21.0/1234/messages";
    Mock::given(method("POST"))
        .and(path(url))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "messaging_product": "whatsapp",
            "messages": [{"id": "wamid.ok"}],
        })))
        .up_to_n_times(1)
        .mount(&fake)
        .await;
    let payload =
        json!({"to": "+447700900123", "body": "Your video is ready", "kind": "video_ready"});
    let row = run_job(&app, "whatsapp-message", payload.clone()).await;
    assert_eq!(row.status.as_str(), "done", "{:?}", row.last_error);
    let sent = fake.received_requests().await.unwrap();
    let body: Value = serde_json::from_slice(&sent[0].body).unwrap();
    assert_eq!(body["to"], "447700900123");
    assert_eq!(body["text"]["body"], "Your video is ready");

    Mock::given(method("POST"))
        .and(path(url))
        .respond_with(ResponseTemplate::new(503))
        .up_to_n_times(1)
        .mount(&fake)
        .await;
    let row = run_job(&app, "whatsapp-message", payload.clone()).await;
    assert_eq!(row.status.as_str(), "queued", "{:?}", row.last_error);
    assert!(row.last_error.unwrap_or_default().contains("503"));
    Mock::given(method("POST"))
        .and(path(url))
        .respond_with(ResponseTemplate::new(400).set_body_string("bad number"))
        .mount(&fake)
        .await;
    let row = run_job(&app, "whatsapp-message", payload).await;
    assert_eq!(row.status.as_str(), "dead", "{:?}", row.last_error);
}

#[actix_web::test]
async fn support_operations_are_documented_once_each() {
    let app = app().await;
    let doc: Value = data_of(get(&app, "/api-docs/openapi.json", None).await).await;
    for (path, method, id) in [
        ("/support-tickets", "post", "create_ticket"),
        ("/support-tickets", "get", "tickets"),
        ("/support-tickets/{id}", "get", "ticket"),
        ("/support-tickets/{id}/messages", "post", "add_message"),
        ("/support-tickets/{id}/close", "post", "close_ticket"),
    ] {
        let op = &doc["paths"][path][method];
        assert_eq!(op["operationId"], id, "{path} {method}");
        assert_eq!(op["tags"], json!(["support"]), "{path} {method}");
        assert!(op["responses"].get("401").is_some(), "{path} {method}");
    }
    crate::helpers::assert_operations_and_links_consistent(&doc);
}

async fn data_of(res: reqwest::Response) -> Value {
    assert_eq!(res.status(), 200);
    res.json().await.unwrap()
}
