//! What sign-in codes cost: taps refused by the cooldown or a lock spend none of the phone's
//! hourly budget, and texts to one country calling code are capped across the service.

use super::*;
use chrono::Duration;
use serde_json::json;
use switchboard::core::config::LimitSettings;
use switchboard::services::advertising::settings::AdvertisingRateLimits;

/// The advertising app with the shipped per-phone code budgets (5 an hour from one address,
/// 10 from all), which `app()` lifts out of the way.
async fn app_with_code_budgets(tweak: impl FnOnce(&mut Settings)) -> TestApp {
    app_with(|s| {
        let shipped = AdvertisingRateLimits::default();
        let l = &mut s.services.advertising.rate_limits;
        l.otp_per_sender = shipped.otp_per_sender;
        l.otp_per_phone = shipped.otp_per_phone;
        tweak(s);
    })
    .await
}

async fn ask(app: &TestApp, phone: &str) -> Response {
    post(
        app,
        "/auth/request-otp",
        None,
        json!({"phoneNumber": phone, "countryId": "GB"}),
    )
    .await
}

/// Asserts a 429 with `code` and a `retryAfter` of 1 to `at_most` seconds.
async fn wait(res: Response, code: &str, at_most: i64) -> i64 {
    let err = refused(res, 429, code).await;
    crate::helpers::wait_within(&err["retryAfter"], at_most, &err)
}

#[actix_web::test]
async fn taps_inside_the_cooldown_spend_none_of_the_hourly_budget() {
    let app = app_with_code_budgets(|_| {}).await;
    assert_eq!(
        app.settings
            .services
            .advertising
            .rate_limits
            .otp_per_sender
            .limit,
        5
    );
    let phone = phone();
    data(ask(&app, &phone).await).await;
    for _ in 0..5 {
        app.advance(Duration::seconds(5));
        wait(ask(&app, &phone).await, "otp_cooldown", 60).await;
    }
    assert_eq!(app.outbox_for(&phone).len(), 1);
    app.advance(Duration::seconds(35));
    data(ask(&app, &phone).await).await;
    // Only the codes sent count: five in an hour, then the budget says when.
    for _ in 0..3 {
        app.advance(Duration::seconds(60));
        data(ask(&app, &phone).await).await;
    }
    assert_eq!(app.outbox_for(&phone).len(), 5);
    app.advance(Duration::seconds(60));
    wait(ask(&app, &phone).await, "rate_limit_exceeded", 3600).await;
    assert_eq!(app.outbox_for(&phone).len(), 5);
}

#[actix_web::test]
async fn taps_while_the_phone_is_locked_spend_none_of_the_hourly_budget() {
    let app = app_with_code_budgets(|_| {}).await;
    let phone = phone();
    let code = send_code(&app, &phone).await;
    let wrong = if code == "000000" { "111111" } else { "000000" };
    for _ in 0..5 {
        post(
            &app,
            "/auth/verify-otp",
            None,
            json!({"phoneNumber": phone, "code": wrong}),
        )
        .await;
    }
    for _ in 0..5 {
        app.advance(Duration::seconds(61));
        wait(ask(&app, &phone).await, "otp_locked", 900).await;
    }
    app.advance(Duration::seconds(900));
    data(ask(&app, &phone).await).await;
    assert_eq!(app.outbox_for(&phone).len(), 2);
}

/// A US number unique to one call (555-01xx is the fictional range; the rest varies).
fn us_phone() -> String {
    format!("+1202555{:04}", uuid::Uuid::new_v4().as_u128() % 10_000)
}

#[actix_web::test]
async fn texts_to_one_calling_code_are_capped_across_the_service() {
    let app = app_with(|s| {
        s.services.advertising.rate_limits.otp_per_calling_code = LimitSettings::new(3, 3600);
    })
    .await;
    let shipped = AdvertisingRateLimits::default().otp_per_calling_code;
    assert_eq!((shipped.limit, shipped.window_secs), (1000, 3600));
    let uk: Vec<String> = (0..5).map(|_| phone()).collect();
    data(ask(&app, &uk[0]).await).await;
    data(ask(&app, &uk[1]).await).await;
    // A tap refused by the cooldown sends nothing and so takes none of the ceiling.
    wait(ask(&app, &uk[1]).await, "otp_cooldown", 60).await;
    data(ask(&app, &uk[2]).await).await;
    let retry = wait(ask(&app, &uk[3]).await, "country_sms_limit", 3600).await;
    assert!(
        retry > 3500,
        "the first of the three went moments ago: {retry}"
    );
    assert!(app.outbox_for(&uk[3]).is_empty());
    // The refusal took none of that number's own cooldown.
    app.advance(Duration::seconds(1));
    wait(ask(&app, &uk[3]).await, "country_sms_limit", 3600).await;
    // Another calling code has its own ceiling.
    let us = us_phone();
    let sent = post(
        &app,
        "/auth/request-otp",
        None,
        json!({"phoneNumber": us, "countryId": "US"}),
    )
    .await;
    data(sent).await;
    assert_eq!(app.outbox_for(&us).len(), 1);
    app.advance(Duration::hours(1));
    data(ask(&app, &uk[3]).await).await;
    data(ask(&app, &uk[4]).await).await;
    assert_eq!(app.outbox_for(&uk[3]).len(), 1);
}
