//! Crash-safe dispatch: messages are claimed before their provider call, a claim left by a
//! node that died is retaken after its lease without a second hand-over, and the sandbox's
//! delivery reports are jobs.

use super::*;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use switchboard_entities::core::job;
use switchboard_entities::messaging::{message, webhook_delivery};

/// Leaves message `id` as a node killed during its provider call leaves it: claimed
/// (`sending`) by that node until `claim_until`, with `provider_id` if a callback brought one,
/// not sent; its dispatch job running under that node's lapsed lease, no delivery report job.
pub(super) async fn crash_mid_handover(
    app: &TestApp,
    id: &str,
    provider_id: Option<&str>,
    claim_until: chrono::DateTime<chrono::Utc>,
) {
    let db = db(app).await;
    let id: Uuid = id.parse().unwrap();
    let now = app.clock_now();
    let none = Option::<chrono::DateTime<chrono::Utc>>::None;
    message::Entity::update_many()
        .col_expr(message::Column::Status, Expr::value("sending"))
        .col_expr(message::Column::ProviderMessageId, Expr::value(provider_id))
        .col_expr(message::Column::SentAt, Expr::value(none))
        .col_expr(message::Column::DeliveredAt, Expr::value(none))
        .col_expr(message::Column::ClaimExpiresAt, Expr::value(claim_until))
        .col_expr(message::Column::Attempts, Expr::value(1))
        .col_expr(message::Column::ClaimedBy, Expr::value("gone-node"))
        .filter(message::Column::Id.eq(id))
        .exec(&db)
        .await
        .unwrap();
    let moved = job::Entity::update_many()
        .col_expr(job::Column::Status, Expr::value("running"))
        .col_expr(job::Column::LeaseOwner, Expr::value("gone-node"))
        .col_expr(job::Column::LeaseUntil, Expr::value(now))
        .col_expr(job::Column::Attempts, Expr::value(1))
        .filter(job::Column::Key.eq(format!("dispatch:{id}")))
        .exec(&db)
        .await
        .unwrap();
    assert_eq!(moved.rows_affected, 1, "the message has its dispatch job");
    job::Entity::delete_many()
        .filter(job::Column::Key.eq(format!("report:{id}")))
        .exec(&db)
        .await
        .unwrap();
    db.close().await.ok();
}

/// The stored row (the API never shows `sending`).
pub(super) async fn stored(app: &TestApp, id: &str) -> message::Model {
    let db = db(app).await;
    let m = message::Entity::find_by_id(id.parse::<Uuid>().unwrap())
        .one(&db)
        .await
        .unwrap()
        .unwrap();
    db.close().await.ok();
    m
}

/// Outbox lines of the messaging service for message `id`.
fn outbox_lines(app: &TestApp, id: &str) -> Vec<Value> {
    std::fs::read_to_string(&app.outbox)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["message_id"] == id)
        .collect()
}

async fn sent_sms(app: &TestApp, key: &str) -> String {
    send_until(app, key, "+14155550123", "crash me", "delivered").await
}

#[actix_web::test]
async fn an_expired_claim_is_finished_without_a_second_outbox_line_and_a_live_one_is_left() {
    let app = app().await;
    let ws = workspace(&app, "5").await;
    let id = sent_sms(&app, &ws.key).await;
    let first = outbox_lines(&app, &id);
    assert_eq!(
        first.len(),
        1,
        "every messaging outbox line names its message"
    );
    let claim = i64::try_from(app.settings.services.messaging.claim_secs).unwrap();
    crash_mid_handover(
        &app,
        &id,
        None,
        app.clock_now() + chrono::Duration::seconds(claim),
    )
    .await;

    // The claim is live: the retaken job leaves the message alone.
    app.jobs.run_due().await.unwrap();
    let m = message(&app, &ws.key, &id).await;
    assert_eq!(m["status"], "queued", "sending reads as queued: {m}");
    let listed = json_body(app.get_key("/api/v1/messages?status=queued", &ws.key).await).await;
    assert_eq!(listed["data"]["messages"][0]["message_id"], id.as_str());
    let row = stored(&app, &id).await;
    assert_eq!((row.status.as_str(), row.attempts), ("sending", 1));
    assert_eq!(row.claimed_by.as_deref(), Some("gone-node"));
    assert_eq!(outbox_lines(&app, &id).len(), 1);

    // Past the lease: another node retakes it, the sandbox answers its first id.
    app.advance(chrono::Duration::seconds(claim + 1));
    app.jobs.run_due().await.unwrap();
    app.jobs.run_due().await.unwrap();
    let m = wait_status(&app, &ws.key, &id, "delivered").await;
    assert_eq!(m["provider_message_id"], first[0]["provider_message_id"]);
    assert_eq!(outbox_lines(&app, &id).len(), 1, "handed over once");
    let row = stored(&app, &id).await;
    assert_eq!(row.attempts, 2);
    assert_ne!(row.claimed_by.as_deref(), Some("gone-node"));
    assert_eq!(row.claim_expires_at, None);
    // Charged once, never refunded.
    assert_eq!(app.balance(&ws.key).await, json!(4));
}

#[actix_web::test]
async fn a_claim_lapsed_before_the_hand_over_sends_once() {
    let app = app().await;
    let ws = workspace(&app, "5").await;
    let id = sent_sms(&app, &ws.key).await;
    // As if the node died before its provider call: the outbox holds nothing for it.
    std::fs::write(&app.outbox, "").unwrap();
    crash_mid_handover(&app, &id, None, app.clock_now()).await;
    app.jobs.run_due().await.unwrap();
    wait_status(&app, &ws.key, &id, "delivered").await;
    assert_eq!(outbox_lines(&app, &id).len(), 1);
}

#[actix_web::test]
async fn the_sandbox_reports_delivery_through_a_job_and_the_webhook_fires_once() {
    let app = app().await;
    let ws = workspace(&app, "5").await;
    let (rx, _) = subscribed_receiver(&app, &ws.key, &["message.delivered"]).await;
    let id = sent_sms(&app, &ws.key).await;
    let conn = db(&app).await;
    let report = job::Entity::find()
        .filter(job::Column::Key.eq(format!("report:{id}")))
        .one(&conn)
        .await
        .unwrap()
        .expect("the delivery report is a job");
    assert_eq!(report.topic, "messaging.delivery_report");
    assert_eq!(report.status.as_str(), "done");
    eventually("message.delivered", || async {
        (rx.received_requests().await.unwrap().len() == 1).then_some(())
    })
    .await;
    // A second run of the report (at least once) changes nothing and sends nothing.
    job::Entity::update_many()
        .col_expr(job::Column::Status, Expr::value(job::JobStatus::Queued))
        .col_expr(job::Column::RunAt, Expr::value(app.clock_now()))
        .filter(job::Column::Id.eq(report.id))
        .exec(&conn)
        .await
        .unwrap();
    app.jobs.run_due().await.unwrap();
    // Counted once everything has settled, not after a guessed pause: the report has run
    // again, no job is waiting or running (but the recurring ones) and no webhook delivery
    // is pending, so a second webhook would have been recorded or received by now.
    eventually("the second report run and what it started", || {
        let conn = conn.clone();
        async move {
            let jobs = job::Entity::find().all(&conn).await.unwrap();
            let settled = jobs.iter().all(|j| {
                matches!(j.status.as_str(), "done" | "dead")
                    || j.key.as_deref().is_some_and(|k| k.starts_with("every:"))
            });
            let pending = webhook_delivery::Entity::find()
                .filter(webhook_delivery::Column::Status.eq("pending"))
                .all(&conn)
                .await
                .unwrap();
            (settled && pending.is_empty()).then_some(())
        }
    })
    .await;
    let delivered = webhook_delivery::Entity::find()
        .filter(webhook_delivery::Column::EventType.eq("message.delivered"))
        .all(&conn)
        .await
        .unwrap();
    assert_eq!(delivered.len(), 1, "{delivered:?}");
    assert_eq!(rx.received_requests().await.unwrap().len(), 1);
    conn.close().await.ok();
}

#[actix_web::test]
async fn a_batch_with_a_refused_message_sends_the_rest_and_refunds_only_that_one() {
    use wiremock::{Mock, MockServer, Request, ResponseTemplate};
    let twilio = MockServer::start().await;
    // Each recipient gets its own SID; the carrier refuses +14155550002.
    Mock::given(wiremock::matchers::method("POST"))
        .respond_with(|req: &Request| {
            let body = String::from_utf8_lossy(&req.body).into_owned();
            let to = body
                .split('&')
                .find_map(|kv| kv.strip_prefix("To=%2B"))
                .unwrap_or("")
                .to_owned();
            if to == "14155550002" {
                ResponseTemplate::new(400)
                    .set_body_json(json!({"code": 21211, "message": "Invalid 'To'"}))
            } else {
                ResponseTemplate::new(201).set_body_json(json!({"sid": format!("SM{to}")}))
            }
        })
        .mount(&twilio)
        .await;
    let app = app_with(|s| {
        s.providers.sms.provider = "twilio".into();
        s.providers.sms.base_url = twilio.uri();
        s.providers.sms.account_sid = "AC9".into();
    })
    .await;
    let ws = workspace(&app, "10").await;
    let recipients: Vec<Value> = (1..=4)
        .map(|i| json!({"to": format!("+1415555000{i}")}))
        .collect();
    let res = app
        .post_key(
            "/api/v1/messages/bulk",
            &ws.key,
            json!({"channel": "sms", "content": {"text": "Batch"}, "recipients": recipients}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let ids: Vec<String> = json_body(res).await["data"]["message_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_str().unwrap().to_owned())
        .collect();
    for (i, id) in ids.iter().enumerate() {
        let n = i + 1;
        if n == 2 {
            let m = wait_status(&app, &ws.key, id, "failed").await;
            assert_eq!(m["error_code"], "provider_rejected_400");
        } else {
            let m = wait_status(&app, &ws.key, id, "sent").await;
            assert_eq!(m["provider_message_id"], format!("SM1415555000{n}"));
        }
    }
    // Four debits, one refund: the refused message's.
    assert_eq!(app.balance(&ws.key).await, json!(7));
    let refunds: Vec<_> = ledger(&app, &ws.key)
        .await
        .into_iter()
        .filter(|r| r.reason == "refund")
        .collect();
    assert_eq!(refunds.len(), 1, "{refunds:?}");
    assert_eq!(refunds[0].message_id, Some(ids[1].parse().unwrap()));
    assert_eq!(refunds[0].amount, 100);
}

#[actix_web::test]
async fn a_retaken_claim_and_fresh_messages_in_one_run_are_each_handed_over_once() {
    let app = app().await;
    let ws = workspace(&app, "10").await;
    let old = sent_sms(&app, &ws.key).await;
    crash_mid_handover(&app, &old, None, app.clock_now()).await;
    let res = app
        .post_key(
            "/api/v1/messages/bulk",
            &ws.key,
            json!({"channel": "sms", "content": {"text": "Fresh"},
                   "recipients": [{"to": "+14155550201"}, {"to": "+14155550202"}]}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let fresh: Vec<String> = json_body(res).await["data"]["message_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_str().unwrap().to_owned())
        .collect();
    app.jobs.run_due().await.unwrap();
    for id in fresh.iter().chain([&old]) {
        wait_status(&app, &ws.key, id, "delivered").await;
        assert_eq!(outbox_lines(&app, id).len(), 1, "{id} handed over once");
    }
    assert_eq!(stored(&app, &old).await.attempts, 2);
    assert_eq!(app.balance(&ws.key).await, json!(7));
}
