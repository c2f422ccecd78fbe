//! What codes cost: taps refused by the cooldown spend none of the phone's hourly budget.

use crate::helpers::*;
use chrono::Duration;
use reqwest::Response;
use serde_json::json;
use switchboard::core::config::LimitSettings;

async fn send(app: &TestApp, phone: &str) -> Response {
    app.post(
        "/auth/otp/send",
        json!({"phone": phone, "purpose": "signup"}),
    )
    .await
}

/// Asserts a 429 with `code` whose wait (header and `details.retry_after`) is 1 to `at_most`
/// seconds.
async fn wait(res: Response, code: &str, at_most: i64) -> i64 {
    let header = res.headers()["retry-after"].to_str().unwrap().to_owned();
    let v = assert_error(res, 429, code).await;
    let secs = wait_within(&v["error"]["details"]["retry_after"], at_most, &v);
    assert_eq!(header, secs.to_string(), "{v}");
    secs
}

#[actix_web::test]
async fn taps_inside_the_cooldown_spend_none_of_the_hourly_budget() {
    let app = spawn_app().await;
    assert_eq!(
        app.settings
            .services
            .identity
            .rate_limits
            .otp_send_per_sender
            .limit,
        3
    );
    let p = phone();
    assert_eq!(send(&app, &p).await.status(), 200);
    for _ in 0..5 {
        app.advance(Duration::seconds(5));
        wait(send(&app, &p).await, "OTP_COOLDOWN", 60).await;
    }
    assert_eq!(app.outbox_for(&p).len(), 1);
    app.advance(Duration::seconds(35));
    assert_eq!(send(&app, &p).await.status(), 200);
    // Only the codes sent count: the spec's three an hour, then the budget says when.
    app.advance(Duration::seconds(60));
    assert_eq!(send(&app, &p).await.status(), 200);
    app.advance(Duration::seconds(60));
    wait(send(&app, &p).await, "RATE_LIMITED", 3600).await;
    assert_eq!(
        app.outbox_for(&p).len(),
        3,
        "three sent, the fourth refused"
    );
}

#[actix_web::test]
async fn codes_to_one_calling_code_are_capped_across_the_service() {
    let app = spawn_app_with(|s| {
        s.services.identity.rate_limits.otp_send_per_calling_code = LimitSettings::new(3, 3600);
    })
    .await;
    let de: Vec<String> = (0..4).map(|_| phone()).collect();
    assert_eq!(send(&app, &de[0]).await.status(), 200);
    // Its sign-up took the second; a code refused for its purpose takes none.
    let exists = app.signup(&de[1], &handle(), "1234").await;
    assert!(exists["user"].is_object(), "{exists}");
    assert_error(send(&app, &de[1]).await, 409, "PHONE_EXISTS").await;
    assert_eq!(send(&app, &de[2]).await.status(), 200);
    wait(send(&app, &de[3]).await, "COUNTRY_SMS_LIMIT", 3600).await;
    assert!(app.outbox_for(&de[3]).is_empty());
    // `phone()` is German; another calling code has its own ceiling.
    let uk = crate::advertising::phone();
    assert_eq!(send(&app, &uk).await.status(), 200);
    app.advance(Duration::hours(1));
    assert_eq!(send(&app, &de[3]).await.status(), 200);
}
