//! Balances, transactions and withdrawals.

use super::*;
use serde_json::json;

#[actix_web::test]
async fn a_new_poster_has_nothing_and_cannot_withdraw() {
    let app = app().await;
    let token = poster(&app).await;
    let b = data(get(&app, "/users/balance", Some(&token)).await).await;
    for k in ["available", "pending", "underReview", "lifetime"] {
        assert_eq!(b[format!("{k}Cents")], 0, "{b}");
        assert_eq!(b[format!("{k}Usd")], "0.00", "{b}");
    }
    let p = data(get(&app, "/transactions/pending-amount", Some(&token)).await).await;
    assert_eq!(
        p,
        json!({"pendingCents": 0, "pendingUsd": "0.00", "underReviewCents": 0, "underReviewUsd": "0.00"})
    );
    let list = data(get(&app, "/transactions", Some(&token)).await).await;
    assert_eq!(list["total"], 0);
    refused(
        post(
            &app,
            "/transactions/withdraw",
            Some(&token),
            json!({"amount": 1, "paymentMethodId": "pm_1"}),
        )
        .await,
        400,
        "insufficient_balance",
    )
    .await;
    for (body, field) in [
        (json!({"paymentMethodId": "pm_1"}), "amount"),
        (json!({"amount": 0, "paymentMethodId": "pm_1"}), "amount"),
        (
            json!({"amount": 1.234, "paymentMethodId": "pm_1"}),
            "amount",
        ),
        (json!({"amount": 1}), "paymentMethodId"),
        (
            json!({"amount": 1, "paymentMethodId": "x".repeat(129)}),
            "paymentMethodId",
        ),
    ] {
        let err = refused(
            post(&app, "/transactions/withdraw", Some(&token), body).await,
            400,
            "validation_error",
        )
        .await;
        assert_eq!(err["details"]["field"], field, "{err}");
    }
    refused(
        get(&app, "/transactions?type=gift", Some(&token)).await,
        400,
        "validation_error",
    )
    .await;
    refused(
        get(&app, "/transactions?status=lost", Some(&token)).await,
        400,
        "validation_error",
    )
    .await;
    refused(
        get(&app, "/transactions/TX-AAAAAAAA", Some(&token)).await,
        404,
        "transaction_not_found",
    )
    .await;
    refused(get(&app, "/users/balance", None).await, 401, "unauthorized").await;
    let stats = data(get(&app, "/users/stats", Some(&token)).await).await;
    assert_eq!(stats["subscriptions"]["total"], 0);
    assert_eq!(stats["approvalRate"], Value::Null);
    assert_eq!(stats["lifetimeEarningsCents"], 0);
    refused(get(&app, "/users/stats", None).await, 401, "unauthorized").await;
}
