//! The PIN lockout from every door a PIN is checked at, its 24-hour cap, and the PIN reset
//! that clears it. Sign-in rate limits are raised here so only the lockout can refuse.

use crate::helpers::*;
use chrono::Duration;
use serde_json::json;
use switchboard::core::config::LimitSettings;
use switchboard::settings::Settings;

fn lockout_only(s: &mut Settings) {
    signin_phone_limits_off(s);
    let r = &mut s.services.identity.rate_limits;
    r.signin_per_ip = LimitSettings::new(1000, 900);
    r.default = LimitSettings::new(1000, 60);
}

async fn signin(app: &TestApp, phone: &str, pin: &str) -> reqwest::Response {
    app.post("/auth/signin", json!({"phone": phone, "pin": pin}))
        .await
}

async fn five_wrong_signins(app: &TestApp, phone: &str) {
    for _ in 0..5 {
        signin(app, phone, "0000").await;
    }
}

#[actix_web::test]
async fn wrong_pins_at_handle_change_and_account_deletion_count_toward_the_lock() {
    let app = spawn_app_with(lockout_only).await;
    let p = phone();
    let data = app.signup(&p, &handle(), "4321").await;
    let token = data["access_token"].as_str().unwrap().to_owned();
    for _ in 0..3 {
        assert_error(
            app.post_auth(
                "/users/handle/change",
                &token,
                json!({"new_handle": handle(), "pin": "0000"}),
            )
            .await,
            401,
            "INVALID_CREDENTIALS",
        )
        .await;
    }
    for _ in 0..2 {
        let res = app
            .client
            .delete(app.url("/users/me"))
            .bearer_auth(&token)
            .json(&json!({"pin": "0000", "confirmation": "DELETE MY ACCOUNT"}))
            .send()
            .await
            .unwrap();
        assert_error(res, 401, "INVALID_CREDENTIALS").await;
    }
    // Five wrong PINs in all: the account is locked, the right PIN refused at every door.
    assert_error(signin(&app, &p, "4321").await, 403, "ACCOUNT_LOCKED").await;
    assert_error(
        app.post_auth(
            "/users/handle/change",
            &token,
            json!({"new_handle": handle(), "pin": "4321"}),
        )
        .await,
        403,
        "ACCOUNT_LOCKED",
    )
    .await;
}

#[actix_web::test]
async fn locks_double_up_to_24_hours_and_no_further() {
    let app = spawn_app_with(|s| {
        lockout_only(s);
        s.services.identity.lockout.base_lock_secs = 12 * 3600;
    })
    .await;
    let p = phone();
    app.signup(&p, &handle(), "4321").await;
    // 12 h, then 24 h, then 24 h again (48 h would follow without the cap).
    for lock_hours in [12, 24, 24] {
        five_wrong_signins(&app, &p).await;
        app.advance(Duration::hours(lock_hours) - Duration::seconds(5));
        assert_error(signin(&app, &p, "4321").await, 403, "ACCOUNT_LOCKED").await;
        app.advance(Duration::seconds(10));
    }
    assert_eq!(signin(&app, &p, "4321").await.status(), 200);
}

#[actix_web::test]
async fn pin_reset_lifts_the_lock_at_once_and_retires_the_old_pin() {
    let app = spawn_app_with(lockout_only).await;
    let p = phone();
    app.signup(&p, &handle(), "1111").await;
    five_wrong_signins(&app, &p).await;
    assert_error(signin(&app, &p, "1111").await, 403, "ACCOUNT_LOCKED").await;
    let temp = app.temp_token(&p, "pin_reset").await;
    let res = app
        .post(
            "/auth/pin/reset",
            json!({"temp_token": temp, "new_pin": "2222"}),
        )
        .await;
    assert_eq!(res.status(), 200);
    // No time passes: the lock is gone, the old PIN is wrong, the new one works.
    assert_error(signin(&app, &p, "1111").await, 401, "INVALID_CREDENTIALS").await;
    assert_eq!(signin(&app, &p, "2222").await.status(), 200);
}

#[actix_web::test]
async fn a_new_code_replaces_the_one_before() {
    let app = spawn_app().await;
    let p = phone();
    let send = || app.post("/auth/otp/send", json!({"phone": p, "purpose": "signup"}));
    assert_eq!(send().await.status(), 200);
    let first = app.last_code(&p);
    app.advance(Duration::seconds(60));
    assert_eq!(send().await.status(), 200);
    let second = app.last_code(&p);
    let verify = |code: String| {
        app.post(
            "/auth/otp/verify",
            json!({"phone": p, "code": code, "purpose": "signup"}),
        )
    };
    // (Two random six-digit codes match one time in a million; then there is nothing to see.)
    if first != second {
        assert_error(verify(first).await, 400, "INVALID_OTP").await;
    }
    assert_eq!(verify(second).await.status(), 200);
}
