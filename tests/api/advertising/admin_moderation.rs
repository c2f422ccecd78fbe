//! /admin/ads and /admin/screenshots: moderating ads and the screenshot queue, and bulk
//! approval racing single approvals paying each screenshot once.

use super::admin_accounts::{admin, only_for, staff};
use super::*;
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set};
use serde_json::json;
use switchboard_entities::advertising::{ad, screenshot, subscription};
use uuid::Uuid;

async fn put(app: &TestApp, path: &str, token: &str, body: Option<Value>) -> Response {
    call(app, Method::PUT, path, Some(token), body).await
}

/// A pending screenshot of a ready subscription of `poster` to `ad`, its payout reserved on
/// the ad, written straight to the database (as a submission leaves it) so no video has to
/// be made and no verifier decides it first.
pub async fn pending_shot(app: &TestApp, poster: &str, ad_id: &str, payout: i64) -> String {
    let db = sea_orm::Database::connect(&app.settings.database.url)
        .await
        .unwrap();
    let now = chrono::Utc::now();
    let (poster, ad_id) = (
        Uuid::parse_str(poster).unwrap(),
        Uuid::parse_str(ad_id).unwrap(),
    );
    let sub = subscription::ActiveModel {
        id: Set(Uuid::new_v4()),
        poster_id: Set(poster),
        ad_id: Set(ad_id),
        phone_info: Set("{}".into()),
        status: Set(subscription::SubscriptionStatus::Ready),
        failure_reason: Set(None),
        video_key: Set(None),
        proof_code: Set("SEEDED22-ACEF".into()),
        proof_frames: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&db)
    .await
    .unwrap();
    let hash = rand_hash();
    let b = hash.to_be_bytes().map(i32::from);
    let shot = screenshot::ActiveModel {
        id: Set(Uuid::new_v4()),
        poster_id: Set(poster),
        subscription_id: Set(sub.id),
        ad_id: Set(ad_id),
        image_key: Set("screenshots/seeded.png".into()),
        content_type: Set("image/png".into()),
        width: Set(1080),
        height: Set(1920),
        phash: Set(hash),
        band0: Set(b[0]),
        band1: Set(b[1]),
        band2: Set(b[2]),
        band3: Set(b[3]),
        band4: Set(b[4]),
        band5: Set(b[5]),
        band6: Set(b[6]),
        band7: Set(b[7]),
        status: Set(screenshot::ScreenshotStatus::Pending),
        reason: Set(None),
        reason_code: Set(None),
        evidence: Set(None),
        detail_print: Set(None),
        payout_cents: Set(payout),
        open_subscription_id: Set(Some(sub.id)),
        approved_subscription_id: Set(None),
        decided_by: Set(None),
        decided_at: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&db)
    .await
    .unwrap();
    ad::Entity::update_many()
        .col_expr(
            ad::Column::ReservedCents,
            Expr::cust(format!("reserved_cents + {payout}")),
        )
        .filter(ad::Column::Id.eq(ad_id))
        .exec(&db)
        .await
        .unwrap();
    db.close().await.ok();
    shot.id.to_string()
}

fn rand_hash() -> i64 {
    Uuid::new_v4().as_u128() as i64
}

/// A signed-in poster: (token, id).
pub async fn poster_with_id(app: &TestApp) -> (String, String) {
    let (t, u) = sign_in(app, &phone()).await;
    (t, u["id"].as_str().unwrap().to_owned())
}

#[actix_web::test]
async fn moderators_move_ads_through_their_states() {
    let app = app().await;
    let moderator = staff(&app, "moderator").await;
    let (p, _) = poster_with_id(&app).await;
    let id = ad(&app, "Moderated", "GB", "1", "10");
    let listed = || async { data(get(&app, "/ads", Some(&p)).await).await["total"].as_u64() };
    assert_eq!(listed().await, Some(1));

    let all = data(
        get(
            &app,
            "/admin/ads?status=approved&countryId=GB",
            Some(&moderator),
        )
        .await,
    )
    .await;
    assert_eq!(all["total"], 1);
    assert_eq!(all["items"][0]["fundedCents"], 1000);
    let none = data(
        get(
            &app,
            &format!("/admin/ads?advertiserId={}", Uuid::new_v4()),
            Some(&moderator),
        )
        .await,
    )
    .await;
    assert_eq!(none["total"], 0);
    refused(
        get(&app, "/admin/ads?status=lost", Some(&moderator)).await,
        400,
        "validation_error",
    )
    .await;
    refused(
        get(&app, "/admin/ads?advertiserId=x", Some(&moderator)).await,
        400,
        "validation_error",
    )
    .await;

    let paused = data(put(&app, &format!("/admin/ads/{id}/pause"), &moderator, None).await).await;
    assert_eq!(
        (paused["status"].as_str(), paused["listed"].as_bool()),
        (Some("paused"), Some(false))
    );
    assert_eq!(listed().await, Some(0));
    refused(
        put(&app, &format!("/admin/ads/{id}/pause"), &moderator, None).await,
        409,
        "invalid_transition",
    )
    .await;
    let resumed =
        data(put(&app, &format!("/admin/ads/{id}/approve"), &moderator, None).await).await;
    assert_eq!(
        (resumed["status"].as_str(), resumed["listed"].as_bool()),
        (Some("approved"), Some(true))
    );
    assert_eq!(listed().await, Some(1));
    refused(
        put(&app, &format!("/admin/ads/{id}/approve"), &moderator, None).await,
        409,
        "invalid_transition",
    )
    .await;

    for bad in [json!({}), json!({"reason": "  "})] {
        let res = put(
            &app,
            &format!("/admin/ads/{id}/reject"),
            &moderator,
            Some(bad),
        )
        .await;
        refused(res, 400, "validation_error").await;
    }
    let rejected = data(
        put(
            &app,
            &format!("/admin/ads/{id}/reject"),
            &moderator,
            Some(json!({"reason": "misleading"})),
        )
        .await,
    )
    .await;
    assert_eq!(
        (
            rejected["status"].as_str(),
            rejected["statusReason"].as_str()
        ),
        (Some("rejected"), Some("misleading"))
    );
    assert_eq!(listed().await, Some(0));
    refused(
        put(&app, &format!("/admin/ads/{id}/pause"), &moderator, None).await,
        409,
        "invalid_transition",
    )
    .await;

    // Deleted: gone for posters, kept for staff; no further move.
    let gone = data(
        call(
            &app,
            Method::DELETE,
            &format!("/admin/ads/{id}"),
            Some(&moderator),
            None,
        )
        .await,
    )
    .await;
    assert_eq!(gone["status"], "deleted");
    refused(
        get(&app, &format!("/ads/{id}"), Some(&p)).await,
        404,
        "ad_not_found",
    )
    .await;
    assert_eq!(
        data(get(&app, &format!("/admin/ads/{id}"), Some(&moderator)).await).await["status"],
        "deleted"
    );
    refused(
        call(
            &app,
            Method::DELETE,
            &format!("/admin/ads/{id}"),
            Some(&moderator),
            None,
        )
        .await,
        404,
        "ad_not_found",
    )
    .await;
    refused(
        put(&app, &format!("/admin/ads/{id}/approve"), &moderator, None).await,
        404,
        "ad_not_found",
    )
    .await;
    let unknown = Uuid::new_v4();
    refused(
        get(&app, &format!("/admin/ads/{unknown}"), Some(&moderator)).await,
        404,
        "ad_not_found",
    )
    .await;

    let finance = staff(&app, "finance").await;
    for (method, path, body) in [
        (Method::GET, "/admin/ads".to_owned(), None),
        (Method::GET, format!("/admin/ads/{id}"), None),
        (Method::PUT, format!("/admin/ads/{id}/approve"), None),
        (Method::PUT, format!("/admin/ads/{id}/pause"), None),
        (
            Method::PUT,
            format!("/admin/ads/{id}/reject"),
            Some(json!({"reason": "x"})),
        ),
        (Method::DELETE, format!("/admin/ads/{id}"), None),
    ] {
        only_for(&app, method, &path, body, &[&finance, &p]).await;
    }
}

#[actix_web::test]
async fn a_deleted_ad_still_pays_the_screenshots_it_reserved_for() {
    let app = app().await;
    let boss = admin(&app).await;
    let (p, pid) = poster_with_id(&app).await;
    let id = ad(&app, "Soon gone", "GB", "2", "10");
    let shot = pending_shot(&app, &pid, &id, 200).await;
    data(
        call(
            &app,
            Method::DELETE,
            &format!("/admin/ads/{id}"),
            Some(&boss),
            None,
        )
        .await,
    )
    .await;
    let approved = data(
        post(
            &app,
            &format!("/admin/screenshots/{shot}/approve"),
            Some(&boss),
            json!({}),
        )
        .await,
    )
    .await;
    assert_eq!(approved["status"], "approved");
    let b = data(get(&app, "/users/balance", Some(&p)).await).await;
    assert_eq!(b["availableCents"], 200);
    let a = data(get(&app, &format!("/admin/ads/{id}"), Some(&boss)).await).await;
    assert_eq!(
        (a["spentCents"].as_i64(), a["reservedCents"].as_i64()),
        (Some(200), Some(0))
    );
}

#[actix_web::test]
async fn moderators_work_the_screenshot_queue() {
    let app = app().await;
    let moderator = staff(&app, "moderator").await;
    let (p1, id1) = poster_with_id(&app).await;
    let (p2, id2) = poster_with_id(&app).await;
    let ad_id = ad(&app, "Queue", "GB", "1.50", "30");
    let s1 = pending_shot(&app, &id1, &ad_id, 150).await;
    let s2 = pending_shot(&app, &id2, &ad_id, 150).await;

    let q = data(get(&app, "/admin/screenshots", Some(&moderator)).await).await;
    assert_eq!(q["total"], 2);
    assert_eq!(q["items"][0]["id"], s1.as_str(), "oldest first");
    let mine = data(
        get(
            &app,
            &format!("/admin/screenshots?userId={id2}&adId={ad_id}&status=pending"),
            Some(&moderator),
        )
        .await,
    )
    .await;
    assert_eq!(
        (mine["total"].as_u64(), mine["items"][0]["userId"].as_str()),
        (Some(1), Some(id2.as_str()))
    );
    let review = data(
        get(
            &app,
            "/admin/screenshots?status=needs_review",
            Some(&moderator),
        )
        .await,
    )
    .await;
    assert_eq!(review["total"], 0);
    refused(
        get(&app, "/admin/screenshots?status=approved", Some(&moderator)).await,
        400,
        "validation_error",
    )
    .await;
    refused(
        get(&app, "/admin/screenshots?adId=nope", Some(&moderator)).await,
        400,
        "validation_error",
    )
    .await;
    let one = data(get(&app, &format!("/admin/screenshots/{s1}"), Some(&moderator)).await).await;
    assert_eq!(one["payoutCents"], 150);
    let unknown = Uuid::new_v4();
    refused(
        get(
            &app,
            &format!("/admin/screenshots/{unknown}"),
            Some(&moderator),
        )
        .await,
        404,
        "screenshot_not_found",
    )
    .await;

    let ok1 = data(
        post(
            &app,
            &format!("/admin/screenshots/{s1}/approve"),
            Some(&moderator),
            json!({}),
        )
        .await,
    )
    .await;
    assert_eq!(ok1["status"], "approved");
    assert!(ok1["decidedBy"].as_str().is_some());
    refused(
        post(
            &app,
            &format!("/admin/screenshots/{s1}/approve"),
            Some(&moderator),
            json!({}),
        )
        .await,
        409,
        "invalid_transition",
    )
    .await;
    refused(
        post(
            &app,
            &format!("/admin/screenshots/{s1}/reject"),
            Some(&moderator),
            json!({"reason": "late"}),
        )
        .await,
        409,
        "invalid_transition",
    )
    .await;
    refused(
        post(
            &app,
            &format!("/admin/screenshots/{s2}/reject"),
            Some(&moderator),
            json!({}),
        )
        .await,
        400,
        "validation_error",
    )
    .await;
    let no = data(
        post(
            &app,
            &format!("/admin/screenshots/{s2}/reject"),
            Some(&moderator),
            json!({"reason": "cropped"}),
        )
        .await,
    )
    .await;
    assert_eq!(
        (no["status"].as_str(), no["reason"].as_str()),
        (Some("rejected"), Some("cropped"))
    );
    refused(
        post(
            &app,
            &format!("/admin/screenshots/{unknown}/approve"),
            Some(&moderator),
            json!({}),
        )
        .await,
        404,
        "screenshot_not_found",
    )
    .await;
    assert_eq!(
        data(get(&app, "/users/balance", Some(&p1)).await).await["availableCents"],
        150
    );
    assert_eq!(
        data(get(&app, "/users/balance", Some(&p2)).await).await["availableCents"],
        0
    );
    let a = data(get(&app, &format!("/admin/ads/{ad_id}"), Some(&moderator)).await).await;
    assert_eq!(
        (a["spentCents"].as_i64(), a["reservedCents"].as_i64()),
        (Some(150), Some(0))
    );

    // Bulk: bounds and per-id outcomes.
    refused(
        post(
            &app,
            "/admin/screenshots/bulk-approve",
            Some(&moderator),
            json!({"screenshotIds": []}),
        )
        .await,
        400,
        "validation_error",
    )
    .await;
    let many: Vec<String> = (0..101).map(|_| Uuid::new_v4().to_string()).collect();
    refused(
        post(
            &app,
            "/admin/screenshots/bulk-approve",
            Some(&moderator),
            json!({"screenshotIds": many}),
        )
        .await,
        400,
        "validation_error",
    )
    .await;
    let out = data(
        post(
            &app,
            "/admin/screenshots/bulk-approve",
            Some(&moderator),
            json!({"screenshotIds": [s1, "junk"]}),
        )
        .await,
    )
    .await;
    assert_eq!(out["approved"], json!([]));
    assert_eq!(out["failed"].as_array().unwrap().len(), 2, "{out}");
    assert_eq!(out["failed"][1]["id"], "junk");

    let finance = staff(&app, "finance").await;
    for (method, path, body) in [
        (Method::GET, "/admin/screenshots".to_owned(), None),
        (Method::GET, format!("/admin/screenshots/{s1}"), None),
        (
            Method::POST,
            format!("/admin/screenshots/{s1}/approve"),
            Some(json!({})),
        ),
        (
            Method::POST,
            format!("/admin/screenshots/{s1}/reject"),
            Some(json!({"reason": "x"})),
        ),
        (
            Method::POST,
            "/admin/screenshots/bulk-approve".to_owned(),
            Some(json!({"screenshotIds": [s1]})),
        ),
    ] {
        only_for(&app, method, &path, body, &[&finance, &p1]).await;
    }
}

#[actix_web::test]
async fn bulk_approval_racing_single_approvals_pays_each_screenshot_once() {
    let app = app().await;
    let (boss, moderator) = (admin(&app).await, staff(&app, "moderator").await);
    let ad_id = ad(&app, "Race", "GB", "1", "50");
    let mut posters = Vec::new();
    let mut shots = Vec::new();
    for _ in 0..6 {
        let (t, id) = poster_with_id(&app).await;
        shots.push(pending_shot(&app, &id, &ad_id, 100).await);
        posters.push(t);
    }
    let bulk = post(
        &app,
        "/admin/screenshots/bulk-approve",
        Some(&boss),
        json!({"screenshotIds": shots}),
    );
    let singles = futures_util::future::join_all(shots.iter().flat_map(|s| {
        let path = format!("/admin/screenshots/{s}/approve");
        [moderator.clone(), boss.clone()].map(|t| {
            let path = path.clone();
            let app = &app;
            async move {
                post(app, &path, Some(&t), json!({}))
                    .await
                    .status()
                    .as_u16()
            }
        })
    }));
    let (bulk, singles) = futures_util::join!(bulk, singles);
    let bulk = data(bulk).await;
    let won_singly = singles.iter().filter(|s| **s == 200).count();
    assert!(
        singles.iter().all(|s| *s == 200 || *s == 409),
        "{singles:?}"
    );
    assert_eq!(
        bulk["approved"].as_array().unwrap().len() + won_singly,
        6,
        "{bulk} {singles:?}"
    );
    for t in &posters {
        let b = data(get(&app, "/users/balance", Some(t)).await).await;
        assert_eq!(
            (b["availableCents"].as_i64(), b["lifetimeCents"].as_i64()),
            (Some(100), Some(100)),
            "{b}"
        );
        let txs = data(get(&app, "/transactions", Some(t)).await).await;
        assert_eq!(txs["total"], 1);
    }
    let a = data(get(&app, &format!("/admin/ads/{ad_id}"), Some(&boss)).await).await;
    assert_eq!(
        (a["spentCents"].as_i64(), a["reservedCents"].as_i64()),
        (Some(600), Some(0))
    );
}
