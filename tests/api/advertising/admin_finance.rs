//! /admin/finance: transactions, withdrawals and deposits for finance staff, and processing
//! a withdrawal (paid completes the hold, cancelled returns it).

use super::admin_accounts::{only_for, staff};
use super::admin_moderation::{pending_shot, poster_with_id};
use super::*;
use serde_json::json;

async fn withdraw(app: &TestApp, token: &str, amount: &str) -> String {
    let w = data(
        post(
            app,
            "/transactions/withdraw",
            Some(token),
            json!({"amount": amount, "paymentMethodId": "pm_1"}),
        )
        .await,
    )
    .await;
    w["id"].as_str().unwrap().to_owned()
}

#[actix_web::test]
async fn finance_processes_withdrawals_and_reads_the_books() {
    let app = app().await;
    let finance = staff(&app, "finance").await;
    let moderator = staff(&app, "moderator").await;
    let (p, pid) = poster_with_id(&app).await;
    let ad_id = ad(&app, "Books", "GB", "5", "20");
    let shot = pending_shot(&app, &pid, &ad_id, 500).await;
    data(
        post(
            &app,
            &format!("/admin/screenshots/{shot}/approve"),
            Some(&moderator),
            json!({}),
        )
        .await,
    )
    .await;
    let paid = withdraw(&app, &p, "2.00").await;
    let back = withdraw(&app, &p, "1.00").await;

    let pending = data(
        get(
            &app,
            "/admin/finance/withdrawals?status=pending",
            Some(&finance),
        )
        .await,
    )
    .await;
    assert_eq!(pending["total"], 2);
    assert_eq!(pending["items"][0]["userId"], pid.as_str());
    let w = data(
        post(
            &app,
            &format!("/admin/finance/withdrawals/{paid}/process"),
            Some(&finance),
            json!({"status": "paid", "reference": "bank-42"}),
        )
        .await,
    )
    .await;
    assert_eq!(
        (w["status"].as_str(), w["reference"].as_str()),
        (Some("paid"), Some("bank-42"))
    );
    assert!(w["processedAt"].is_string());
    let c = data(
        post(
            &app,
            &format!("/admin/finance/withdrawals/{back}/process"),
            Some(&finance),
            json!({"status": "cancelled"}),
        )
        .await,
    )
    .await;
    assert_eq!(c["status"], "cancelled");
    let b = data(get(&app, "/users/balance", Some(&p)).await).await;
    assert_eq!(
        (b["availableCents"].as_i64(), b["pendingCents"].as_i64()),
        (Some(300), Some(0)),
        "{b}"
    );
    let mine = data(get(&app, "/transactions?type=withdrawal", Some(&p)).await).await;
    let statuses: Vec<&str> = mine["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["cancelled", "completed"]);

    // Processed once; only paid or cancelled; unknown ids.
    refused(
        post(
            &app,
            &format!("/admin/finance/withdrawals/{paid}/process"),
            Some(&finance),
            json!({"status": "cancelled"}),
        )
        .await,
        409,
        "invalid_transition",
    )
    .await;
    for bad in [
        json!({}),
        json!({"status": "refunded"}),
        json!({"status": "paid", "reference": "x".repeat(201)}),
    ] {
        refused(
            post(
                &app,
                &format!("/admin/finance/withdrawals/{paid}/process"),
                Some(&finance),
                bad,
            )
            .await,
            400,
            "validation_error",
        )
        .await;
    }
    let unknown = uuid::Uuid::new_v4();
    refused(
        post(
            &app,
            &format!("/admin/finance/withdrawals/{unknown}/process"),
            Some(&finance),
            json!({"status": "paid"}),
        )
        .await,
        404,
        "withdrawal_not_found",
    )
    .await;

    let all = data(get(&app, "/admin/finance/transactions", Some(&finance)).await).await;
    assert_eq!(all["total"], 4, "grant, earning, two withdrawals: {all}");
    let earnings = data(
        get(
            &app,
            "/admin/finance/transactions?type=earning&status=completed",
            Some(&finance),
        )
        .await,
    )
    .await;
    assert_eq!(
        (
            earnings["total"].as_u64(),
            earnings["items"][0]["userId"].as_str()
        ),
        (Some(1), Some(pid.as_str()))
    );
    let today = app.now().date_naive();
    let yesterday = today.pred_opt().unwrap();
    let dated = data(
        get(
            &app,
            &format!("/admin/finance/transactions?from={today}&to={today}"),
            Some(&finance),
        )
        .await,
    )
    .await;
    assert_eq!(dated["total"], 4);
    let before = data(
        get(
            &app,
            &format!("/admin/finance/transactions?to={yesterday}"),
            Some(&finance),
        )
        .await,
    )
    .await;
    assert_eq!(before["total"], 0);
    let later = data(
        get(
            &app,
            "/admin/finance/withdrawals?from=2999-01-01T00:00:00Z",
            Some(&finance),
        )
        .await,
    )
    .await;
    assert_eq!(later["total"], 0);
    refused(
        get(
            &app,
            "/admin/finance/transactions?from=yesterday",
            Some(&finance),
        )
        .await,
        400,
        "validation_error",
    )
    .await;
    refused(
        get(
            &app,
            "/admin/finance/transactions?type=gift",
            Some(&finance),
        )
        .await,
        400,
        "validation_error",
    )
    .await;
    refused(
        get(
            &app,
            "/admin/finance/withdrawals?status=completed",
            Some(&finance),
        )
        .await,
        400,
        "validation_error",
    )
    .await;
    let deposits = data(get(&app, "/admin/finance/deposits", Some(&finance)).await).await;
    assert_eq!(
        (
            deposits["total"].as_u64(),
            deposits["items"][0]["amountCents"].as_i64()
        ),
        (Some(1), Some(2000))
    );

    let invoices =
        data(get(&app, "/admin/finance/invoices?status=paid", Some(&finance)).await).await;
    assert_eq!(invoices["total"], 0);
    refused(
        get(&app, "/admin/finance/invoices?status=void", Some(&finance)).await,
        400,
        "validation_error",
    )
    .await;

    // The seeded administrator may too; moderators and posters may not.
    let boss = super::admin_accounts::admin(&app).await;
    data(get(&app, "/admin/finance/withdrawals", Some(&boss)).await).await;
    for (method, path, body) in [
        (Method::GET, "/admin/finance/transactions".to_owned(), None),
        (Method::GET, "/admin/finance/withdrawals".to_owned(), None),
        (Method::GET, "/admin/finance/deposits".to_owned(), None),
        (Method::GET, "/admin/finance/invoices".to_owned(), None),
        (
            Method::POST,
            format!("/admin/finance/withdrawals/{paid}/process"),
            Some(json!({"status": "paid"})),
        ),
    ] {
        only_for(&app, method, &path, body, &[&moderator, &p]).await;
    }
}
