//! Payments: checkouts funding an ad, the Stripe-signed webhook, the sandbox's page,
//! payment look-ups and invoices.

use super::*;
use hmac::{Hmac, KeyInit, Mac};
use sea_orm::{ActiveModelTrait, DatabaseConnection, EntityTrait, Set};
use sha2::Sha256;
use switchboard_entities::advertising::{ad, advertiser};
use uuid::Uuid;

pub const SECRET: &str = "dev-payments-webhook-secret";

pub async fn db(app: &TestApp) -> DatabaseConnection {
    sea_orm::Database::connect(&app.settings.database.url)
        .await
        .expect("connect")
}

/// A verified, signed-in advertiser (over HTTP): their token and id.
pub async fn advertiser(app: &TestApp) -> (String, Uuid) {
    let (token, who) = super::advertisers::advertiser(app).await;
    (token, Uuid::parse_str(who["id"].as_str().unwrap()).unwrap())
}

/// The email address of advertiser `id`.
async fn email_of(app: &TestApp, id: Uuid) -> String {
    advertiser::Entity::find_by_id(id)
        .one(&db(app).await)
        .await
        .unwrap()
        .unwrap()
        .email
}

/// An approved, unfunded ad of `owner` in GB: budget $50, payout $1. Written here until
/// campaigns are created and approved over HTTP in this branch.
pub async fn campaign(app: &TestApp, owner: Uuid, title: &str) -> String {
    let db = db(app).await;
    let id = Uuid::new_v4();
    let now = app.now();
    ad::ActiveModel {
        id: Set(id),
        advertiser_id: Set(Some(owner)),
        title: Set(title.into()),
        description: Set(None),
        category_id: Set(None),
        country: Set("GB".into()),
        video_source: Set("https://videos.example.com/ad.mp4".into()),
        payout_cents: Set(100),
        budget_cents: Set(5000),
        funded_cents: Set(0),
        reserved_cents: Set(0),
        spent_cents: Set(0),
        status: Set(ad::AdStatus::Approved),
        status_reason: Set(None),
        listed: Set(false),
        demographics: Set(None),
        video_status: Set(Some(ad::VideoStatus::Ready)),
        video_error: Set(None),
        video_key: Set(None),
        thumbnail_key: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&db)
    .await
    .unwrap();
    id.to_string()
}

pub async fn funded(app: &TestApp, ad_id: &str) -> (i64, bool) {
    let a = ad::Entity::find_by_id(Uuid::parse_str(ad_id).unwrap())
        .one(&db(app).await)
        .await
        .unwrap()
        .unwrap();
    (a.funded_cents, a.listed)
}

pub async fn checkout(app: &TestApp, token: &str, ad_id: &str) -> Response {
    post(
        app,
        "/api/campaign-payments/create-checkout",
        Some(token),
        json!({"adId": ad_id, "successUrl": "https://shop.example.com/ok", "cancelUrl": "http://shop.example.com/no"}),
    )
    .await
}

/// `Stripe-Signature` as Stripe's libraries make it (stripe-node's
/// `generateTestHeaderString`, stripe-python's `WebhookSignature`): HMAC-SHA256 over
/// `"{t}.{payload}"`, hex, as `t=…,v1=…`.
pub fn stripe_header(secret: &str, t: i64, payload: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{t}.{payload}").as_bytes());
    format!("t={t},v1={}", hex::encode(mac.finalize().into_bytes()))
}

/// A `checkout.session.*` event as Stripe sends it (pretty-printed, as it arrives).
pub fn event(id: &str, kind: &str, session: &str, amount: i64, currency: &str) -> String {
    serde_json::to_string_pretty(&json!({
        "id": id,
        "object": "event",
        "api_version": "2024-06-20",
        "created": 1_700_000_000,
        "livemode": false,
        "pending_webhooks": 1,
        "type": kind,
        "data": {"object": {
            "id": session,
            "object": "checkout.session",
            "amount_total": amount,
            "currency": currency,
            "mode": "payment",
            "payment_status": if kind.ends_with("completed") || kind.ends_with("succeeded") { "paid" } else { "unpaid" },
            "status": "complete"
        }}
    }))
    .unwrap()
}

pub async fn deliver(app: &TestApp, header: Option<&str>, payload: &str) -> Response {
    let mut r = req(app, Method::POST, "/api/campaign-payments/webhook", None)
        .header("Content-Type", "application/json; charset=utf-8")
        .body(payload.to_owned());
    if let Some(h) = header {
        r = r.header("Stripe-Signature", h);
    }
    r.send().await.unwrap()
}

/// A payment of the advertiser's, by the id or session id in `id`.
pub async fn payment(app: &TestApp, token: &str, id: &Value) -> Value {
    let path = format!("/api/campaign-payments/{}", id.as_str().unwrap());
    data(get(app, &path, Some(token)).await).await
}

/// Pay or Cancel on the sandbox page at `url`.
pub async fn choose(app: &TestApp, url: &str, action: &str) -> Response {
    app.client
        .post(url)
        .form(&[("action", action)])
        .send()
        .await
        .unwrap()
}

/// Delivers `payload` signed now with the webhook secret.
pub async fn signed(app: &TestApp, payload: &str) -> Response {
    let header = stripe_header(SECRET, app.now().timestamp(), payload);
    deliver(app, Some(&header), payload).await
}

#[actix_web::test]
async fn sandbox_checkout_funds_the_ad_and_posters_see_it() {
    let app = app().await;
    let (token, me) = advertiser(&app).await;
    let ad_id = campaign(&app, me, "Rocket boots").await;
    let poster = poster(&app).await;
    let ads = data(get(&app, "/ads", Some(&poster)).await).await;
    assert_eq!(ads["total"], 0, "approved but unpaid: not listed");

    let c = data(checkout(&app, &token, &ad_id).await).await;
    let again = data(checkout(&app, &token, &ad_id).await).await;
    assert_eq!(c, again, "a pending checkout answers itself");
    let url = c["url"].as_str().unwrap();
    assert!(
        url.starts_with(&format!(
            "{}/api/campaign-payments/sandbox/",
            app.advertising
        )),
        "{url}"
    );
    let page = app.client.get(url).send().await.unwrap();
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(
        html.contains("$50.00") && html.contains("Rocket boots"),
        "{html}"
    );

    let paid = choose(&app, url, "pay").await;
    assert_eq!(paid.status(), 303);
    assert_eq!(paid.headers()["location"], "https://shop.example.com/ok");
    assert_eq!(funded(&app, &ad_id).await, (5000, true));

    let p = payment(&app, &token, &c["paymentId"]).await;
    assert_eq!(p["status"], "paid");
    assert_eq!(p["amountCents"], 5000);
    assert_eq!(p["amountUsd"], "50.00");
    assert_eq!(p["ad"]["fundedUsd"], "50.00");
    let by_session = payment(&app, &token, &c["sessionId"]).await;
    assert_eq!(by_session["paymentId"], c["paymentId"]);

    let ads = data(get(&app, "/ads", Some(&poster)).await).await;
    assert_eq!(ads["items"][0]["id"], ad_id.as_str());
    assert_eq!(ads["items"][0]["freeBudgetCents"], 5000);

    // The page is spent; nothing left to fund.
    let twice = choose(&app, url, "pay").await;
    assert_eq!(twice.status(), 200);
    assert_eq!(funded(&app, &ad_id).await.0, 5000);
    refused(checkout(&app, &token, &ad_id).await, 400, "nothing_to_fund").await;

    // The deposit is a ledger transaction.
    use sea_orm::{ColumnTrait, QueryFilter};
    use switchboard_entities::advertising::transaction;
    let deposits = transaction::Entity::find()
        .filter(transaction::Column::Kind.eq("deposit"))
        .filter(transaction::Column::AdId.eq(Uuid::parse_str(&ad_id).unwrap()))
        .all(&db(&app).await)
        .await
        .unwrap();
    assert_eq!(deposits.len(), 1);
    assert_eq!(deposits[0].amount_cents, 5000);
    assert_eq!(deposits[0].advertiser_id, Some(me));
}

#[actix_web::test]
async fn cancel_expires_the_checkout_and_a_new_one_can_be_made() {
    let app = app().await;
    let (token, me) = advertiser(&app).await;
    let ad_id = campaign(&app, me, "Cancelled").await;
    let c = data(checkout(&app, &token, &ad_id).await).await;
    let res = choose(&app, c["url"].as_str().unwrap(), "cancel").await;
    assert_eq!(res.status(), 303);
    assert_eq!(res.headers()["location"], "http://shop.example.com/no");
    let p = payment(&app, &token, &c["paymentId"]).await;
    assert_eq!(p["status"], "expired");
    assert_eq!(funded(&app, &ad_id).await, (0, false));
    let next = data(checkout(&app, &token, &ad_id).await).await;
    assert_ne!(next["paymentId"], c["paymentId"]);
}

#[actix_web::test]
async fn create_checkout_refusals_and_roles() {
    let app = app().await;
    let (token, me) = advertiser(&app).await;
    let (other, _) = advertiser(&app).await;
    let ad_id = campaign(&app, me, "Mine").await;
    refused(checkout(&app, "nope", &ad_id).await, 401, "unauthorized").await;
    let res = post(
        &app,
        "/api/campaign-payments/create-checkout",
        None,
        json!({"adId": ad_id}),
    )
    .await;
    refused(res, 401, "unauthorized").await;
    let poster = poster(&app).await;
    refused(checkout(&app, &poster, &ad_id).await, 403, "forbidden").await;
    refused(checkout(&app, &other, &ad_id).await, 404, "ad_not_found").await;
    refused(
        checkout(&app, &token, &Uuid::new_v4().to_string()).await,
        404,
        "ad_not_found",
    )
    .await;
    refused(
        checkout(&app, &token, "not-an-id").await,
        404,
        "ad_not_found",
    )
    .await;
    for (body, field) in [
        (
            json!({"successUrl": "https://a.example/ok", "cancelUrl": "https://a.example/no"}),
            "adId",
        ),
        (
            json!({"adId": ad_id, "successUrl": "javascript:alert(1)", "cancelUrl": "https://a.example/no"}),
            "successUrl",
        ),
        (
            json!({"adId": ad_id, "successUrl": "https://a.example/ok", "cancelUrl": "/relative"}),
            "cancelUrl",
        ),
        (
            json!({"adId": ad_id, "successUrl": "https://a.example/ok"}),
            "cancelUrl",
        ),
    ] {
        let b = refused(
            post(
                &app,
                "/api/campaign-payments/create-checkout",
                Some(&token),
                body,
            )
            .await,
            400,
            "validation_error",
        )
        .await;
        assert_eq!(b["details"]["field"], field, "{b}");
    }
    // Look-ups: the owner only; others and unknown ids alike.
    let c = data(checkout(&app, &token, &ad_id).await).await;
    let pid = c["paymentId"].as_str().unwrap();
    refused(
        get(&app, &format!("/api/campaign-payments/{pid}"), Some(&other)).await,
        404,
        "payment_not_found",
    )
    .await;
    refused(
        get(&app, "/api/campaign-payments/cs_nothing", Some(&token)).await,
        404,
        "payment_not_found",
    )
    .await;
    refused(
        get(
            &app,
            &format!("/api/campaign-payments/{pid}"),
            Some(&poster),
        )
        .await,
        403,
        "forbidden",
    )
    .await;
    refused(
        get(&app, &format!("/api/campaign-payments/{pid}"), None).await,
        401,
        "unauthorized",
    )
    .await;
    let p = data(get(&app, &format!("/api/campaign-payments/{pid}"), Some(&token)).await).await;
    assert_eq!(p["status"], "pending");
    assert_eq!(p["url"], c["url"]);
    let page = app
        .client
        .get(format!(
            "{}/api/campaign-payments/sandbox/cs_unknown",
            app.advertising
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 404);
}

#[actix_web::test]
async fn racing_checkouts_of_one_ad_answer_one_payment() {
    let app = app().await;
    let (token, me) = advertiser(&app).await;
    let ad_id = campaign(&app, me, "Race").await;
    let all = futures_util::future::join_all((0..8).map(|_| checkout(&app, &token, &ad_id))).await;
    let mut ids = std::collections::BTreeSet::new();
    for res in all {
        ids.insert(data(res).await["paymentId"].as_str().unwrap().to_owned());
    }
    assert_eq!(ids.len(), 1, "{ids:?}");
}

#[actix_web::test]
async fn webhook_verifies_stripe_signatures_and_handles_each_event_once() {
    let app = app().await;
    let (token, me) = advertiser(&app).await;
    let ad_id = campaign(&app, me, "Signed").await;
    let c = data(checkout(&app, &token, &ad_id).await).await;
    let session = c["sessionId"].as_str().unwrap();
    let now = app.now().timestamp();
    let payload = event("evt_1", "checkout.session.completed", session, 5000, "usd");

    let b = refused(deliver(&app, None, &payload).await, 400, "invalid_webhook").await;
    assert!(b["error"].as_str().unwrap().contains("Stripe-Signature"));
    let tampered = payload.replace("5000", "9000");
    let bad = [
        (stripe_header("whsec_wrong", now, &payload), &payload),
        (stripe_header(SECRET, now - 301, &payload), &payload),
        (stripe_header(SECRET, now + 301, &payload), &payload),
        ("t=1,v1=zz".to_owned(), &payload),
        (stripe_header(SECRET, now, &payload), &tampered),
    ];
    for (header, body) in bad {
        let res = deliver(&app, Some(&header), body).await;
        refused(res, 400, "invalid_webhook").await;
    }
    assert_eq!(funded(&app, &ad_id).await.0, 0, "nothing moved yet");

    // Several v1 values (a secret being rolled) and another scheme: one match is enough.
    let good = stripe_header(SECRET, now - 299, &payload);
    let rolled = format!("{},v1={},v0=deadbeef", good, "ab".repeat(32));
    let ok1 = data(deliver(&app, Some(&rolled), &payload).await).await;
    assert_eq!(ok1["outcome"], "funded");
    assert_eq!(funded(&app, &ad_id).await, (5000, true));
    // The same event again, its valid v1 last this time: 200, nothing changes.
    let (stamp, valid) = good.split_once(',').unwrap();
    let valid_last = format!("{stamp},v0=deadbeef,v1={},{valid}", "cd".repeat(32));
    let replay = data(deliver(&app, Some(&valid_last), &payload).await).await;
    assert_eq!(replay["outcome"], "replay");
    // Another event for the same session: the payment is settled already.
    let other = event("evt_2", "checkout.session.completed", session, 5000, "usd");
    let again = data(signed(&app, &other).await).await;
    assert_eq!(again["outcome"], "settled");
    assert_eq!(funded(&app, &ad_id).await.0, 5000);

    let unknown = event("evt_3", "customer.created", "cus_1", 0, "usd");
    let ignored = data(signed(&app, &unknown).await).await;
    assert_eq!(ignored["outcome"], "ignored");
}

#[actix_web::test]
async fn a_mismatched_amount_or_currency_funds_nothing() {
    let app = app().await;
    let (token, me) = advertiser(&app).await;
    for (n, (amount, currency)) in [(4999, "usd"), (5000, "eur")].into_iter().enumerate() {
        let ad_id = campaign(&app, me, "Mismatch").await;
        let c = data(checkout(&app, &token, &ad_id).await).await;
        let payload = event(
            &format!("evt_m{n}"),
            "checkout.session.completed",
            c["sessionId"].as_str().unwrap(),
            amount,
            currency,
        );
        let d = data(signed(&app, &payload).await).await;
        assert_eq!(d["outcome"], "mismatch");
        assert_eq!(funded(&app, &ad_id).await, (0, false));
        let p = payment(&app, &token, &c["paymentId"]).await;
        assert_eq!(p["status"], "failed");
        assert!(p["problem"].as_str().unwrap().contains("5000"), "{p}");
    }
}

#[actix_web::test]
async fn expired_and_failed_sessions_mark_the_payment() {
    let app = app().await;
    let (token, me) = advertiser(&app).await;
    for (kind, status) in [
        ("checkout.session.expired", "expired"),
        ("checkout.session.async_payment_failed", "failed"),
    ] {
        let ad_id = campaign(&app, me, "Marked").await;
        let c = data(checkout(&app, &token, &ad_id).await).await;
        let payload = event(
            &format!("evt_{status}"),
            kind,
            c["sessionId"].as_str().unwrap(),
            5000,
            "usd",
        );
        let d = data(signed(&app, &payload).await).await;
        assert_eq!(d["outcome"], status);
        let p = payment(&app, &token, &c["sessionId"]).await;
        assert_eq!(p["status"], status);
    }
}

#[actix_web::test]
async fn a_paid_checkout_has_an_invoice_pdf_mailed_and_listed() {
    let app = app().await;
    let (token, me) = advertiser(&app).await;
    let (other, _) = advertiser(&app).await;
    // An ad's title in other scripts prints as written (embedded fonts).
    let ad_id = campaign(&app, me, "Invoice me Ọjà рынок 市场").await;
    let c = data(checkout(&app, &token, &ad_id).await).await;
    let res = choose(&app, c["url"].as_str().unwrap(), "pay").await;
    assert_eq!(res.status(), 303);
    let _ = app.jobs.run_due().await;

    let list = data(get(&app, "/advertisers/invoices", Some(&token)).await).await;
    assert_eq!(list["total"], 1);
    let inv = &list["items"][0];
    assert_eq!(inv["amountUsd"], "50.00");
    assert_eq!(inv["paymentId"], c["paymentId"]);
    let number = inv["number"].as_str().unwrap();
    assert!(number.starts_with("INV-"), "{number}");
    let id = inv["id"].as_str().unwrap();

    let email = email_of(&app, me).await;
    let mails = app.outbox_for(&email);
    let invoice_mail: Vec<_> = mails
        .iter()
        .filter(|m| m.to_string().contains(number))
        .collect();
    assert_eq!(invoice_mail.len(), 1, "{mails:?}");
    // The PDF travels with the mail (the sandbox keeps it whole).
    let attached = &invoice_mail[0]["details"]["attachments"][0];
    assert_eq!(attached["filename"], format!("{number}.pdf"), "{attached}");
    assert_eq!(attached["contentType"], "application/pdf");
    let mailed = {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD
            .decode(attached["base64"].as_str().unwrap())
            .unwrap()
    };

    let pdf = get(
        &app,
        &format!("/advertisers/invoices/{id}/pdf"),
        Some(&token),
    )
    .await;
    assert_eq!(pdf.status(), 200);
    assert_eq!(pdf.headers()["content-type"], "application/pdf");
    let bytes = pdf.bytes().await.unwrap();
    assert_eq!(mailed, bytes.to_vec(), "the mailed PDF is the one kept");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("invoice.pdf");
    std::fs::write(&path, &bytes).unwrap();
    let out = std::process::Command::new("pdftotext")
        .arg(&path)
        .arg("-")
        .output()
        .expect("pdftotext (poppler-utils; scripts/setup installs it)");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(number), "{text}");
    assert!(text.contains("50.00 USD"), "{text}");
    assert!(
        text.contains("Acme Ltd") && text.contains("Invoice me Ọjà рынок 市场"),
        "{text}"
    );

    refused(
        get(
            &app,
            &format!("/advertisers/invoices/{id}/pdf"),
            Some(&other),
        )
        .await,
        404,
        "invoice_not_found",
    )
    .await;
    refused(
        get(&app, "/advertisers/invoices/nope/pdf", Some(&token)).await,
        404,
        "invoice_not_found",
    )
    .await;
    assert_eq!(
        data(get(&app, "/advertisers/invoices", Some(&other)).await).await["total"],
        0
    );
    let poster = poster(&app).await;
    refused(
        get(&app, "/advertisers/invoices", Some(&poster)).await,
        403,
        "forbidden",
    )
    .await;
}

#[actix_web::test]
async fn payment_operations_are_documented() {
    let app = app().await;
    let res = get(&app, "/api-docs/openapi.json", None).await;
    assert_eq!(res.status(), 200);
    let doc: Value = res.json().await.unwrap();
    for (path, method, id) in [
        (
            "/api/campaign-payments/create-checkout",
            "post",
            "create_checkout",
        ),
        ("/api/campaign-payments/webhook", "post", "payment_webhook"),
        ("/api/campaign-payments/{id}", "get", "payment"),
        (
            "/api/campaign-payments/sandbox/{session_id}",
            "get",
            "sandbox_page",
        ),
        (
            "/api/campaign-payments/sandbox/{session_id}",
            "post",
            "sandbox_decide",
        ),
        ("/advertisers/invoices", "get", "list_invoices"),
        ("/advertisers/invoices/{id}/pdf", "get", "invoice_pdf"),
    ] {
        let op = &doc["paths"][path][method];
        assert_eq!(op["operationId"], id, "{path} {method}");
        assert_eq!(op["tags"], json!(["payments"]), "{path} {method}");
        assert!(op["responses"].get("400").is_some(), "{path} {method}");
    }
    crate::helpers::assert_operations_and_links_consistent(&doc);
}

#[actix_web::test]
async fn the_webhook_is_not_rate_limited_with_other_requests() {
    let app = app_with(|s| s.services.advertising.rate_limits.general.limit = 2).await;
    let payload = event("evt_burst", "customer.created", "cus_1", 0, "usd");
    for _ in 0..4 {
        refused(
            deliver(&app, Some("t=1,v1=00"), &payload).await,
            400,
            "invalid_webhook",
        )
        .await;
    }
    let ok = data(signed(&app, &payload).await).await;
    assert_eq!(ok["outcome"], "ignored");
}

#[actix_web::test]
async fn a_delayed_payment_funds_when_its_money_arrives() {
    let app = app().await;
    let (token, me) = advertiser(&app).await;
    let ad_id = campaign(&app, me, "Bank transfer").await;
    let c = data(checkout(&app, &token, &ad_id).await).await;
    let session = c["sessionId"].as_str().unwrap();
    let completed = event("evt_d1", "checkout.session.completed", session, 5000, "usd")
        .replace("\"paid\"", "\"unpaid\"");
    let d = data(signed(&app, &completed).await).await;
    assert_eq!(d["outcome"], "unpaid");
    assert_eq!(funded(&app, &ad_id).await.0, 0);
    assert_eq!(
        payment(&app, &token, &c["paymentId"]).await["status"],
        "pending"
    );
    let arrived = event(
        "evt_d2",
        "checkout.session.async_payment_succeeded",
        session,
        5000,
        "usd",
    );
    let d = data(signed(&app, &arrived).await).await;
    assert_eq!(d["outcome"], "funded");
    assert_eq!(funded(&app, &ad_id).await, (5000, true));
}
