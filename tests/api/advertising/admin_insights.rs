//! The analytics overview, advertisers, system health, support for moderators and the
//! website's dashboard metrics behind `X-API-Key`.

use super::admin_accounts::{admin, only_for, staff};
use super::admin_moderation::{pending_shot, poster_with_id};
use super::*;
use chrono::Duration;
use serde_json::{json, Value};
use switchboard::core::clock::Clock;

#[actix_web::test]
async fn staff_read_the_platform_and_the_website_its_metrics() {
    let app = app().await;
    let (boss, moderator, finance) = (
        admin(&app).await,
        staff(&app, "moderator").await,
        staff(&app, "finance").await,
    );
    let (p, pid) = poster_with_id(&app).await;
    let ad_id = ad(&app, "Figures", "GB", "1", "10");
    let s1 = pending_shot(&app, &pid, &ad_id, 100).await;
    data(
        post(
            &app,
            &format!("/admin/screenshots/{s1}/approve"),
            Some(&moderator),
            json!({}),
        )
        .await,
    )
    .await;
    let (_, pid2) = poster_with_id(&app).await;
    pending_shot(&app, &pid2, &ad_id, 100).await;

    let o = data(get(&app, "/admin/analytics/overview", Some(&finance)).await).await;
    assert_eq!(
        (
            o["users"].as_u64(),
            o["advertisers"].as_u64(),
            o["activeAds"].as_u64()
        ),
        (Some(2), Some(0), Some(1)),
        "{o}"
    );
    assert_eq!(
        (
            o["screenshots"]["approved"].as_u64(),
            o["screenshots"]["pending"].as_u64()
        ),
        (Some(1), Some(1))
    );
    assert_eq!(
        (
            o["earningsPaidCents"].as_i64(),
            o["earningsPaidUsd"].as_str()
        ),
        (Some(100), Some("1.00"))
    );
    assert_eq!(o["depositsCents"], 1000);
    let daily = o["daily"].as_array().unwrap();
    assert_eq!(daily.len(), 30);
    // Today, last: two subscriptions and screenshots (seeded), one approved.
    let today = &daily[29];
    assert_eq!(
        today["date"],
        app.clock.now().format("%Y-%m-%d").to_string()
    );
    // The 29 days before it are each one day earlier and empty.
    for (back, day) in daily.iter().rev().enumerate().skip(1) {
        let date = (app.clock.now() - Duration::days(back as i64)).format("%Y-%m-%d");
        assert_eq!(day["date"], date.to_string(), "{day}");
        assert_eq!(
            (day["subscriptions"].as_u64(), day["approvals"].as_u64()),
            (Some(0), Some(0)),
            "{day}"
        );
    }
    assert_eq!(
        (
            today["subscriptions"].as_u64(),
            today["screenshots"].as_u64(),
            today["approvals"].as_u64(),
            today["earningsCents"].as_i64()
        ),
        (Some(2), Some(2), Some(1), Some(100)),
        "{today}"
    );
    data(get(&app, "/admin/analytics/overview", Some(&boss)).await).await;

    let a = data(get(&app, "/admin/advertisers?limit=5", Some(&boss)).await).await;
    assert_eq!(
        (a["total"].as_u64(), a["limit"].as_u64()),
        (Some(0), Some(5))
    );
    refused(
        get(&app, "/admin/advertisers?limit=0", Some(&boss)).await,
        400,
        "validation_error",
    )
    .await;

    // The queue as staff see it: a topic of this test's own, two waiting and one dead.
    {
        use sea_orm::{ActiveModelTrait, EntityTrait, Set};
        use switchboard::core::jobs::NewJob;
        use switchboard_entities::core::job;
        let db = sea_orm::Database::connect(&app.settings.database.url)
            .await
            .unwrap();
        let later = app.clock.now() + Duration::days(1);
        for n in 0..3 {
            let id = app
                .jobs
                .enqueue(
                    &db,
                    NewJob::new("insights.probe", json!({"n": n})).at(later),
                )
                .await
                .unwrap()
                .unwrap();
            if n == 2 {
                let mut row: job::ActiveModel = job::Entity::find_by_id(id.0)
                    .one(&db)
                    .await
                    .unwrap()
                    .unwrap()
                    .into();
                row.status = Set(job::JobStatus::Dead);
                row.update(&db).await.unwrap();
            }
        }
    }
    let sys = data(get(&app, "/admin/system", Some(&boss)).await).await;
    assert_eq!(sys["database"], "ok");
    assert_eq!(sys["providers"]["storage"], "local");
    assert!(sys["version"].as_str().is_some_and(|v| !v.is_empty()));
    let probe: Vec<&Value> = sys["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["topic"] == "insights.probe")
        .collect();
    assert_eq!(
        probe,
        [&json!({"topic": "insights.probe", "depth": 2, "failed": 1})],
        "{sys}"
    );
    assert!(sys["recentErrors"].is_array(), "{sys}");

    // The dashboard: the configured key only, compared whole.
    let key = app.settings.services.advertising.dashboard_api_key.clone();
    let m = data(
        req(&app, Method::GET, "/api/dashboard/metrics", None)
            .header("X-API-Key", &key)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        (
            m["users"].as_u64(),
            m["advertisers"].as_u64(),
            m["activeAds"].as_u64()
        ),
        (Some(2), Some(0), Some(1)),
        "{m}"
    );
    assert_eq!(
        (
            m["totalEarnings"].as_str(),
            m["totalEarningsCents"].as_i64()
        ),
        (Some("1.00"), Some(100))
    );
    assert_eq!(
        (
            m["pendingScreenshots"].as_u64(),
            m["pendingWithdrawals"].as_u64()
        ),
        (Some(1), Some(0))
    );
    assert!(m["jobBacklog"].is_u64());
    for wrong in [
        None,
        Some(format!("{key}x")),
        Some(key[..key.len() - 1].to_owned()),
        Some(String::new()),
    ] {
        let mut r = req(&app, Method::GET, "/api/dashboard/metrics", Some(&boss));
        if let Some(w) = wrong {
            r = r.header("X-API-Key", w);
        }
        let res = r.send().await.unwrap();
        assert_eq!(res.status(), 401);
        let body: Value = res.json().await.unwrap();
        assert!(body["error"].is_string(), "{body}");
    }

    // Roles: analytics for finance (and admin); advertisers and system for the admin only.
    only_for(
        &app,
        Method::GET,
        "/admin/analytics/overview",
        None,
        &[&moderator, &p],
    )
    .await;
    for path in ["/admin/advertisers", "/admin/system"] {
        only_for(&app, Method::GET, path, None, &[&moderator, &finance, &p]).await;
    }
}

#[actix_web::test]
async fn moderators_answer_support_tickets() {
    let app = app().await;
    let moderator = staff(&app, "moderator").await;
    let finance = staff(&app, "finance").await;
    let p = poster(&app).await;
    let t = data(
        post(
            &app,
            "/support-tickets",
            Some(&p),
            json!({"subject": "Payout", "category": "payments", "message": "Where is my money?"}),
        )
        .await,
    )
    .await;
    let id = t["id"].as_str().unwrap().to_owned();

    let list = data(get(&app, "/admin/support-tickets?status=open", Some(&moderator)).await).await;
    assert_eq!(
        (list["total"].as_u64(), list["items"][0]["id"].as_str()),
        (Some(1), Some(id.as_str()))
    );
    refused(
        get(&app, "/admin/support-tickets?status=lost", Some(&moderator)).await,
        400,
        "validation_error",
    )
    .await;
    let m = data(
        post(
            &app,
            &format!("/admin/support-tickets/{id}/messages"),
            Some(&moderator),
            json!({"message": "Sent today."}),
        )
        .await,
    )
    .await;
    assert_eq!(m["authorKind"], "admin");
    let seen = data(get(&app, &format!("/support-tickets/{id}"), Some(&p)).await).await;
    assert_eq!(seen["messages"].as_array().unwrap().len(), 2, "{seen}");
    refused(
        post(
            &app,
            &format!("/admin/support-tickets/{id}/messages"),
            Some(&moderator),
            json!({"message": ""}),
        )
        .await,
        400,
        "validation_error",
    )
    .await;
    let unknown = uuid::Uuid::new_v4();
    refused(
        post(
            &app,
            &format!("/admin/support-tickets/{unknown}/messages"),
            Some(&moderator),
            json!({"message": "hi"}),
        )
        .await,
        404,
        "ticket_not_found",
    )
    .await;
    data(
        post(
            &app,
            &format!("/support-tickets/{id}/close"),
            Some(&p),
            json!({}),
        )
        .await,
    )
    .await;
    refused(
        post(
            &app,
            &format!("/admin/support-tickets/{id}/messages"),
            Some(&moderator),
            json!({"message": "late"}),
        )
        .await,
        409,
        "ticket_closed",
    )
    .await;

    only_for(
        &app,
        Method::GET,
        "/admin/support-tickets",
        None,
        &[&finance, &p],
    )
    .await;
    only_for(
        &app,
        Method::POST,
        &format!("/admin/support-tickets/{id}/messages"),
        Some(json!({"message": "x"})),
        &[&finance, &p],
    )
    .await;
}
