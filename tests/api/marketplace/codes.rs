//! What codes cost: taps refused by the cooldown spend none of the phone's hourly budget,
//! and a phone without an account sees the same answers.

use super::*;
use crate::helpers::phone;
use chrono::Duration;

async fn forgot(app: &TestApp, phone: &str) -> Response {
    post(app, "/auth/forgot-password", json!({"phone": phone})).await
}

/// Asserts a 429 with `code` and a `retryAfter` of 1 to `at_most` seconds.
async fn wait(res: Response, code: &str, at_most: i64) -> i64 {
    let v = assert_err(res, 429, code).await;
    crate::helpers::wait_within(&v["retryAfter"], at_most, &v)
}

#[actix_web::test]
async fn taps_inside_the_cooldown_spend_none_of_the_hourly_budget() {
    let app = app().await;
    assert_eq!(
        app.settings
            .services
            .marketplace
            .rate_limits
            .otp_per_sender
            .limit,
        5
    );
    let (p, stranger) = (phone(), phone());
    signup(&app, &p, "secret1").await;
    let signed_up = app.outbox_for(&p).len();
    for who in [&p, &stranger] {
        assert_ok(forgot(&app, who).await, 200).await;
    }
    for _ in 0..5 {
        app.advance(Duration::seconds(5));
        for who in [&p, &stranger] {
            wait(forgot(&app, who).await, "otp_cooldown", 60).await;
        }
    }
    assert_eq!(app.outbox_for(&p).len(), signed_up + 1);
    app.advance(Duration::seconds(35));
    // Only what passed the cooldown counts: five an hour, alike with or without an account.
    for _ in 0..4 {
        for who in [&p, &stranger] {
            assert_ok(forgot(&app, who).await, 200).await;
        }
        app.advance(Duration::seconds(60));
    }
    assert_eq!(app.outbox_for(&p).len(), signed_up + 5);
    for who in [&p, &stranger] {
        wait(forgot(&app, who).await, "rate_limit_exceeded", 3600).await;
    }
    assert!(app.outbox_for(&stranger).is_empty());
}
