//! Money that comes back: refunds (full and partial, by the charge's cumulative amount),
//! disputes (won and lost), each event once; what posters already earned becomes the
//! advertiser's debt, settled by their next payment. Every test ends on the ledger's
//! invariant.

use super::earning::{clip_ad, decided, genuine, subscribe, upload};
use super::payments::{advertiser, campaign, checkout, db, payment, signed};
use super::*;
use sea_orm::{ActiveModelTrait, EntityTrait, IntoActiveModel, Set};
use switchboard_entities::advertising::ad;
use uuid::Uuid;

async fn ad_row(app: &TestApp, id: &str) -> ad::Model {
    ad::Entity::find_by_id(Uuid::parse_str(id).unwrap())
        .one(&db(app).await)
        .await
        .unwrap()
        .unwrap()
}

/// An approved ad of a new advertiser with `budget` and `payout` cents, paid through the
/// sandbox's checkout: (advertiser token, ad id, checkout). With `video`, the ad's video is
/// that local file (used as given), so posters can earn from it.
async fn paid_ad(
    app: &TestApp,
    budget: i64,
    payout: i64,
    video: Option<&str>,
) -> (String, String, Value) {
    let (token, me) = advertiser(app).await;
    let id = campaign(app, me, "Refundable").await;
    let mut row = ad_row(app, &id).await.into_active_model();
    row.budget_cents = Set(budget);
    row.payout_cents = Set(payout);
    if let Some(v) = video {
        row.video_source = Set(v.to_owned());
        row.video_status = Set(None);
    }
    row.update(&db(app).await).await.unwrap();
    let c = data(checkout(app, &token, &id).await).await;
    let paid = sandbox(app, &c, &[("action", "pay")]).await;
    assert_eq!(paid.status(), 303);
    (token, id, c)
}

/// A form posted to the checkout's sandbox page.
async fn sandbox(app: &TestApp, checkout: &Value, form: &[(&str, &str)]) -> Response {
    app.client
        .post(checkout["url"].as_str().unwrap())
        .form(form)
        .send()
        .await
        .unwrap()
}

/// A `charge.refunded` event naming `intent`, with the charge's cumulative refund.
fn refund_event(id: &str, intent: &str, amount: i64, refunded: i64) -> String {
    serde_json::to_string_pretty(&json!({
        "id": id, "object": "event", "type": "charge.refunded", "livemode": false,
        "data": {"object": {
            "id": "ch_test_1", "object": "charge", "amount": amount,
            "amount_refunded": refunded, "refunded": refunded == amount,
            "currency": "usd", "payment_intent": intent,
        }}
    }))
    .unwrap()
}

fn dispute_event(id: &str, kind: &str, intent: &str, amount: i64, status: &str) -> String {
    serde_json::to_string_pretty(&json!({
        "id": id, "object": "event", "type": kind, "livemode": false,
        "data": {"object": {
            "id": "dp_test_1", "object": "dispute", "amount": amount, "currency": "usd",
            "payment_intent": intent, "reason": "fraudulent", "status": status,
        }}
    }))
    .unwrap()
}

async fn outcome(app: &TestApp, payload: &str) -> String {
    data(signed(app, payload).await).await["outcome"]
        .as_str()
        .unwrap()
        .to_owned()
}

async fn balance(app: &TestApp, token: &str) -> Value {
    data(get(app, "/advertisers/balance", Some(token)).await).await
}

#[actix_web::test]
async fn a_full_refund_unfunds_and_pauses_the_ad_once() {
    let app = app().await;
    let (token, ad_id, c) = paid_ad(&app, 5000, 100, None).await;
    let p = payment(&app, &token, &c["paymentId"]).await;
    let intent = p["paymentIntent"].as_str().expect("the PaymentIntent kept");
    assert!(intent.starts_with("pi_"), "{p}");
    assert!(ad_row(&app, &ad_id).await.listed);

    let full = refund_event("evt_r1", intent, 5000, 5000);
    assert_eq!(outcome(&app, &full).await, "refunded");
    // The same event again, and the same total under a new id: nothing more moves.
    assert_eq!(outcome(&app, &full).await, "replay");
    let again = refund_event("evt_r2", intent, 5000, 5000);
    assert_eq!(outcome(&app, &again).await, "settled");

    let p = payment(&app, &token, &c["paymentId"]).await;
    assert_eq!(
        (p["status"].as_str(), p["refundedCents"].as_i64()),
        (Some("refunded"), Some(5000)),
        "{p}"
    );
    let a = ad_row(&app, &ad_id).await;
    assert_eq!((a.funded_cents, a.listed), (0, false));
    assert_eq!(a.status.as_str(), "paused");
    assert!(a.status_reason.unwrap().contains("refunded"));
    let b = balance(&app, &token).await;
    assert_eq!(
        (
            b["depositsCents"].as_i64(),
            b["refundedCents"].as_i64(),
            b["owedCents"].as_i64()
        ),
        (Some(0), Some(5000), Some(0)),
        "{b}"
    );
    // Finance sees the refund among the transactions.
    let admin = super::admin_accounts::admin(&app).await;
    let refunds = data(
        get(
            &app,
            "/admin/finance/transactions?type=refund",
            Some(&admin),
        )
        .await,
    )
    .await;
    assert_eq!(refunds["total"], 1, "{refunds}");
    assert_eq!(refunds["items"][0]["amountCents"], 5000, "{refunds}");
    assert_ledger_balanced(&app).await;
}

#[actix_web::test]
async fn partial_refunds_count_by_the_cumulative_amount() {
    let app = app().await;
    let (token, ad_id, c) = paid_ad(&app, 5000, 100, None).await;
    let five = sandbox(&app, &c, &[("action", "refund"), ("amountUsd", "5.00")]).await;
    assert_eq!(five.status(), 200);
    assert!(five.text().await.unwrap().contains("$5.00 refunded"));
    let p = payment(&app, &token, &c["paymentId"]).await;
    assert_eq!(
        (p["status"].as_str(), p["refundedCents"].as_i64()),
        (Some("paid"), Some(500)),
        "{p}"
    );
    let a = ad_row(&app, &ad_id).await;
    assert_eq!(
        (a.funded_cents, a.status.as_str(), a.listed),
        (4500, "approved", true)
    );

    let ten = sandbox(&app, &c, &[("action", "refund"), ("amountUsd", "10")]).await;
    assert_eq!(ten.status(), 200);
    let intent = p["paymentIntent"].as_str().unwrap();
    // An older total arriving late (Stripe does not promise order) moves nothing.
    let late = refund_event("evt_late", intent, 5000, 500);
    assert_eq!(outcome(&app, &late).await, "settled");
    let p = payment(&app, &token, &c["paymentId"]).await;
    assert_eq!(p["refundedCents"], 1500, "{p}");
    assert_eq!(ad_row(&app, &ad_id).await.funded_cents, 3500);
    assert_eq!(balance(&app, &token).await["refundedUsd"], "15.00");
    assert_ledger_balanced(&app).await;
}

#[actix_web::test]
async fn a_refund_of_money_posters_earned_is_owed_and_the_next_payment_settles_it() {
    let dir = tempfile::tempdir().unwrap();
    let app = app().await;
    // The clip stored for an operator's ad is the advertiser's video too.
    let clip = ad_row(&app, &clip_ad(&app, dir.path(), "1", "1"))
        .await
        .video_source;
    let (token, ad_id, c) = paid_ad(&app, 200, 100, Some(&clip)).await;
    let poster = poster(&app).await;
    let sub = subscribe(&app, &poster, &ad_id).await;
    let shot = genuine(&app, &poster, &sub, dir.path(), "1.0").await;
    let s = data(upload(&app, &poster, &sub, shot, "screenshot", "image/jpeg").await).await;
    assert_eq!(
        decided(&app, &poster, s["id"].as_str().unwrap()).await["status"],
        "approved"
    );
    // $1 of the $2 is the poster's now. All $2 go back to the payer: $1 from the ad, $1
    // owed by the advertiser; the poster keeps what they earned.
    let all = sandbox(&app, &c, &[("action", "refund"), ("amountUsd", "2.00")]).await;
    assert_eq!(all.status(), 200);
    let a = ad_row(&app, &ad_id).await;
    assert_eq!(
        (a.funded_cents, a.spent_cents, a.status.as_str()),
        (100, 100, "paused")
    );
    let b = balance(&app, &token).await;
    assert_eq!(
        (b["owedCents"].as_i64(), b["owedUsd"].as_str()),
        (Some(100), Some("1.00")),
        "{b}"
    );
    let earned = data(get(&app, "/users/balance", Some(&poster)).await).await;
    assert_eq!(earned["availableCents"], 100, "{earned}");
    assert_ledger_balanced(&app).await;

    // The next payment ($1: budget less funded) settles the debt first; the one after funds
    // the ad, which then covers a payout again and comes back by itself.
    let next = data(checkout(&app, &token, &ad_id).await).await;
    assert_eq!(
        payment(&app, &token, &next["paymentId"]).await["amountCents"],
        100
    );
    assert_eq!(
        sandbox(&app, &next, &[("action", "pay")]).await.status(),
        303
    );
    assert_eq!(balance(&app, &token).await["owedCents"], 0);
    let a = ad_row(&app, &ad_id).await;
    assert_eq!((a.funded_cents, a.status.as_str()), (100, "paused"));
    let last = data(checkout(&app, &token, &ad_id).await).await;
    assert_eq!(
        sandbox(&app, &last, &[("action", "pay")]).await.status(),
        303
    );
    let a = ad_row(&app, &ad_id).await;
    assert_eq!(
        (a.funded_cents, a.status.as_str(), a.listed),
        (200, "approved", true)
    );
    assert_ledger_balanced(&app).await;
}

#[actix_web::test]
async fn a_dispute_holds_the_budget_and_a_won_dispute_gives_it_back() {
    let app = app().await;
    let (token, ad_id, c) = paid_ad(&app, 5000, 100, None).await;
    let intent = payment(&app, &token, &c["paymentId"]).await["paymentIntent"]
        .as_str()
        .unwrap()
        .to_owned();
    let opened = dispute_event(
        "evt_d1",
        "charge.dispute.created",
        &intent,
        5000,
        "needs_response",
    );
    assert_eq!(outcome(&app, &opened).await, "disputed");
    assert_eq!(outcome(&app, &opened).await, "replay");
    let p = payment(&app, &token, &c["paymentId"]).await;
    assert_eq!(
        (p["disputeStatus"].as_str(), p["heldCents"].as_i64()),
        (Some("open"), Some(5000)),
        "{p}"
    );
    let a = ad_row(&app, &ad_id).await;
    assert_eq!(
        (a.funded_cents, a.status.as_str(), a.listed),
        (0, "paused", false)
    );
    assert_eq!(balance(&app, &token).await["disputedCents"], 5000);
    assert_ledger_balanced(&app).await;

    let won = sandbox(&app, &c, &[("action", "dispute_won")]).await;
    assert_eq!(won.status(), 200);
    let p = payment(&app, &token, &c["paymentId"]).await;
    assert_eq!(
        (
            p["disputeStatus"].as_str(),
            p["heldCents"].as_i64(),
            p["status"].as_str()
        ),
        (Some("won"), Some(0), Some("paid")),
        "{p}"
    );
    let a = ad_row(&app, &ad_id).await;
    assert_eq!(
        (a.funded_cents, a.status.as_str(), a.listed),
        (5000, "approved", true)
    );
    // A late copy of the close under another id changes nothing.
    let closed = dispute_event("evt_d9", "charge.dispute.closed", &intent, 5000, "won");
    assert_eq!(outcome(&app, &closed).await, "settled");
    assert_eq!(ad_row(&app, &ad_id).await.funded_cents, 5000);
    assert_ledger_balanced(&app).await;
}

#[actix_web::test]
async fn a_lost_dispute_is_a_refund_of_the_disputed_amount() {
    let app = app().await;
    let (token, ad_id, c) = paid_ad(&app, 5000, 100, None).await;
    sandbox(&app, &c, &[("action", "refund"), ("amountUsd", "10.00")]).await;
    assert_eq!(
        sandbox(&app, &c, &[("action", "dispute")]).await.status(),
        200
    );
    let p = payment(&app, &token, &c["paymentId"]).await;
    assert_eq!(p["heldCents"], 4000, "the rest of the payment: {p}");
    let lost = sandbox(&app, &c, &[("action", "dispute_lost")]).await;
    assert_eq!(lost.status(), 200);
    let p = payment(&app, &token, &c["paymentId"]).await;
    assert_eq!(
        (
            p["status"].as_str(),
            p["disputeStatus"].as_str(),
            p["refundedCents"].as_i64(),
            p["heldCents"].as_i64()
        ),
        (Some("refunded"), Some("lost"), Some(5000), Some(0)),
        "{p}"
    );
    let a = ad_row(&app, &ad_id).await;
    assert_eq!(
        (a.funded_cents, a.status.as_str(), a.listed),
        (0, "paused", false)
    );
    assert!(a.status_reason.unwrap().contains("refunded"));
    let b = balance(&app, &token).await;
    assert_eq!(
        (
            b["refundedCents"].as_i64(),
            b["disputedCents"].as_i64(),
            b["owedCents"].as_i64()
        ),
        (Some(5000), Some(0), Some(0)),
        "{b}"
    );
    // Nothing is left to dispute or win.
    let page = sandbox(&app, &c, &[("action", "dispute_won")]).await;
    assert_eq!(page.status(), 200);
    assert_eq!(ad_row(&app, &ad_id).await.funded_cents, 0);
    assert_ledger_balanced(&app).await;
}

#[actix_web::test]
async fn refund_and_dispute_input_is_checked() {
    let app = app().await;
    let (token, _ad_id, c) = paid_ad(&app, 5000, 100, None).await;
    for amount in ["", "0", "-3", "1.005", "lots"] {
        let r = sandbox(&app, &c, &[("action", "refund"), ("amountUsd", amount)]).await;
        refused(r, 400, "validation_error").await;
    }
    let r = sandbox(&app, &c, &[("action", "steal")]).await;
    refused(r, 400, "validation_error").await;
    // A refund larger than what is left gives back what is left, no more.
    sandbox(&app, &c, &[("action", "refund"), ("amountUsd", "900")]).await;
    let p = payment(&app, &token, &c["paymentId"]).await;
    assert_eq!(p["refundedCents"], 5000, "{p}");
    // Events naming a PaymentIntent nobody paid with are answered, and change nothing.
    let stranger = refund_event("evt_x", "pi_nobody", 5000, 5000);
    assert_eq!(outcome(&app, &stranger).await, "unknown_payment");
    let no_intent = refund_event("evt_y", "", 5000, 5000);
    assert_eq!(outcome(&app, &no_intent).await, "unknown_payment");
    assert_ledger_balanced(&app).await;
}

#[actix_web::test]
async fn a_suspended_advertiser_is_unlisted_signed_out_and_cannot_pay() {
    let app = app().await;
    let (token, ad_id, _) = paid_ad(&app, 5000, 100, None).await;
    let email = data(get(&app, "/advertisers/profile", Some(&token)).await).await["email"]
        .as_str()
        .unwrap()
        .to_owned();
    let me = ad_row(&app, &ad_id).await.advertiser_id.unwrap();
    let finance = super::admin_accounts::staff(&app, "finance").await;
    let moderator = super::admin_accounts::staff(&app, "moderator").await;
    let path = format!("/admin/advertisers/{me}/suspend");
    let why = json!({"reason": "chargebacks from stolen cards"});
    refused(
        post(&app, &path, Some(&moderator), why.clone()).await,
        403,
        "forbidden",
    )
    .await;
    refused(
        post(&app, &path, Some(&finance), json!({"reason": " "})).await,
        400,
        "validation_error",
    )
    .await;
    let unknown = format!("/admin/advertisers/{}/suspend", Uuid::new_v4());
    refused(
        post(&app, &unknown, Some(&finance), why.clone()).await,
        404,
        "advertiser_not_found",
    )
    .await;

    let s = data(post(&app, &path, Some(&finance), why.clone()).await).await;
    assert_eq!(
        (s["suspended"].as_bool(), s["adsChanged"].as_u64()),
        (Some(true), Some(1)),
        "{s}"
    );
    refused(
        post(&app, &path, Some(&finance), why.clone()).await,
        409,
        "invalid_transition",
    )
    .await;
    let a = ad_row(&app, &ad_id).await;
    assert_eq!(
        (a.status.as_str(), a.listed, a.funded_cents),
        ("paused", false, 5000)
    );
    let poster = poster(&app).await;
    assert_eq!(
        data(get(&app, "/ads", Some(&poster)).await).await["total"],
        0
    );
    // Its sessions ended; it may sign in again to read, not to pay or publish.
    refused(
        get(&app, "/advertisers/balance", Some(&token)).await,
        401,
        "unauthorized",
    )
    .await;
    let again =
        data(super::advertisers::login(&app, &email, super::advertisers::PASSWORD).await).await;
    let token = again["token"].as_str().unwrap().to_owned();
    data(get(&app, "/advertisers/balance", Some(&token)).await).await;
    refused(
        checkout(&app, &token, &ad_id).await,
        403,
        "advertiser_suspended",
    )
    .await;
    let edit = call(
        &app,
        Method::PUT,
        &format!("/ads/{ad_id}"),
        Some(&token),
        Some(json!({"title": "x"})),
    )
    .await;
    refused(edit, 403, "advertiser_suspended").await;
    // Staff cannot put its ads back in front of posters meanwhile.
    let approve = call(
        &app,
        Method::PUT,
        &format!("/admin/ads/{ad_id}/approve"),
        Some(&finance),
        None,
    )
    .await;
    assert!(
        matches!(approve.status().as_u16(), 403 | 409),
        "{}",
        approve.status()
    );
    let admin = super::admin_accounts::admin(&app).await;
    let approve = call(
        &app,
        Method::PUT,
        &format!("/admin/ads/{ad_id}/approve"),
        Some(&admin),
        None,
    )
    .await;
    refused(approve, 409, "advertiser_suspended").await;
    let list = data(get(&app, "/admin/advertisers", Some(&admin)).await).await;
    let row = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == me.to_string())
        .unwrap()
        .clone();
    assert_eq!(
        (row["suspended"].as_bool(), row["suspendedReason"].as_str()),
        (Some(true), Some("chargebacks from stolen cards")),
        "{row}"
    );

    let back = format!("/admin/advertisers/{me}/unsuspend");
    let u = data(post(&app, &back, Some(&finance), json!({})).await).await;
    assert_eq!(
        (u["suspended"].as_bool(), u["adsChanged"].as_u64()),
        (Some(false), Some(1)),
        "{u}"
    );
    refused(
        post(&app, &back, Some(&finance), json!({})).await,
        409,
        "invalid_transition",
    )
    .await;
    let a = ad_row(&app, &ad_id).await;
    assert_eq!((a.status.as_str(), a.listed), ("approved", true));
    // Paying is open again (this ad is funded in full, so nothing is left to pay).
    refused(checkout(&app, &token, &ad_id).await, 400, "nothing_to_fund").await;
    assert_ledger_balanced(&app).await;
}
