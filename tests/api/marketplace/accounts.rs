//! Sign-up, verification, login, refresh (and its optional rotation), logout, password
//! reset, resends.

use super::*;
use crate::helpers::phone;
use chrono::Duration;

fn token(v: &Value, field: &str) -> String {
    v[field].as_str().expect(field).to_owned()
}

#[actix_web::test]
async fn signup_sends_a_code_and_verification_marks_the_phone() {
    let app = app().await;
    let p = phone();
    let res = post(
        &app,
        "/auth/signup",
        json!({"phone": p, "password": "secret1", "email": "ada@example.com", "name": "Ada"}),
    )
    .await;
    assert_eq!(res.status(), 201);
    let v = json_body(res).await;
    assert!(v["message"].as_str().unwrap().contains("code"), "{v}");
    let data = &v["data"];
    assert_eq!(data["user"]["phone"], p.as_str());
    assert_eq!(data["user"]["email"], "ada@example.com");
    assert_eq!(data["user"]["role"], "user");
    assert_eq!(data["user"]["isPhoneVerified"], false);
    assert!(data["user"]["_id"].is_string() && data["refreshToken"].is_string());
    // The tokens work at once, before verification.
    let me = assert_ok(
        get(&app, "/auth/me", Some(&token(data, "token"))).await,
        200,
    )
    .await;
    assert_eq!(me["_id"], data["user"]["_id"]);

    let wrong = json!({"phone": p, "otp": "000000"});
    let code = app.last_code(&p);
    if code != "000000" {
        let v = assert_err(
            post(&app, "/auth/verify-signup", wrong).await,
            400,
            "invalid_otp",
        )
        .await;
        assert_eq!(v["details"]["attemptsRemaining"], 4);
    }
    let right = json!({"phone": p, "otp": code});
    let verified = assert_ok(post(&app, "/auth/verify-signup", right.clone()).await, 200).await;
    assert_eq!(verified["user"]["isPhoneVerified"], true);
    assert!(verified["token"].is_string() && verified["refreshToken"].is_string());
    // A code is used once.
    assert_err(
        post(&app, "/auth/verify-signup", right).await,
        400,
        "invalid_otp",
    )
    .await;
    // A verified phone gets no further signup codes (the answer is the same).
    let sent = app.outbox_for(&p).len();
    let res = resend(&app, &p, "signup").await;
    assert_ok(res, 200).await;
    assert_eq!(app.outbox_for(&p).len(), sent);
}

#[actix_web::test]
async fn signup_refuses_bad_input_naming_the_field() {
    let app = app().await;
    let p = phone();
    let cases = [
        (
            json!({"phone": "017612345678", "password": "secret1"}),
            "phone",
        ),
        (json!({"password": "secret1"}), "phone"),
        (json!({"phone": p, "password": "12345"}), "password"),
        (json!({"phone": p}), "password"),
        (
            json!({"phone": p, "password": "secret1", "email": "not-an-email"}),
            "email",
        ),
        (
            json!({"phone": p, "password": "secret1", "name": "  "}),
            "name",
        ),
    ];
    for (body, field) in cases {
        let v = assert_err(
            post(&app, "/auth/signup", body).await,
            400,
            "validation_error",
        )
        .await;
        assert_eq!(v["details"]["field"], field, "{v}");
    }
    let v = assert_err(
        post(
            &app,
            "/auth/signup",
            json!({"phone": "12", "password": "secret1"}),
        )
        .await,
        400,
        "validation_error",
    )
    .await;
    assert_eq!(v["details"]["value"], "12");
    let v = assert_err(
        post(&app, "/auth/signup", json!({"phone": p, "password": "123"})).await,
        400,
        "validation_error",
    )
    .await;
    assert!(
        v["details"]["value"].is_null(),
        "passwords are not echoed: {v}"
    );
    let res = post(
        &app,
        "/auth/signup",
        json!({"phone": 5, "password": "secret1"}),
    )
    .await;
    assert_err(res, 400, "validation_error").await;

    signup(&app, &p, "secret1").await;
    let res = post(
        &app,
        "/auth/signup",
        json!({"phone": p, "password": "other-secret"}),
    )
    .await;
    assert_err(res, 409, "phone_exists").await;
}

#[actix_web::test]
async fn login_checks_the_password_without_telling_which_part_was_wrong() {
    let app = app().await;
    let p = phone();
    signup(&app, &p, "secret1").await;
    let ok = assert_ok(
        post(
            &app,
            "/auth/login",
            json!({"phone": p, "password": "secret1"}),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(ok["user"]["phone"], p.as_str());
    assert!(ok["token"].is_string() && ok["refreshToken"].is_string());
    let wrong = post(
        &app,
        "/auth/login",
        json!({"phone": p, "password": "secret2"}),
    )
    .await;
    let a = assert_err(wrong, 401, "invalid_credentials").await;
    let unknown = post(
        &app,
        "/auth/login",
        json!({"phone": phone(), "password": "secret1"}),
    )
    .await;
    let b = assert_err(unknown, 401, "invalid_credentials").await;
    assert_eq!(a["message"], b["message"]);
    let res = post(&app, "/auth/login", json!({"phone": p})).await;
    let v = assert_err(res, 400, "validation_error").await;
    assert_eq!(v["details"]["field"], "password");
}

#[actix_web::test]
async fn access_tokens_are_checked_and_expire_after_a_day() {
    let app = app().await;
    let auth = signup(&app, &phone(), "secret1").await;
    let access = token(&auth, "token");
    assert_err(get(&app, "/auth/me", None).await, 401, "invalid_token").await;
    assert_err(
        get(&app, "/auth/me", Some("not.a.jwt")).await,
        401,
        "invalid_token",
    )
    .await;
    app.advance(Duration::hours(23));
    assert_ok(get(&app, "/auth/me", Some(&access)).await, 200).await;
    app.advance(Duration::hours(1));
    assert_err(
        get(&app, "/auth/me", Some(&access)).await,
        401,
        "invalid_token",
    )
    .await;
}

/// The spec's client: it keeps the refresh token login gave it and refreshes with it as
/// often as it likes for 30 days; logout ends it.
#[actix_web::test]
async fn a_refresh_token_is_used_again_and_again_until_logout() {
    let app = app().await;
    let auth = signup(&app, &phone(), "secret1").await;
    let kept = token(&auth, "refreshToken");
    // Day 0 twice, then day 10 and day 29.
    for days in [0, 0, 10, 19] {
        app.advance(Duration::days(days));
        let res = post(&app, "/auth/refresh-token", json!({"refreshToken": kept})).await;
        let refreshed = assert_ok(res, 200).await;
        assert_eq!(token(&refreshed, "refreshToken"), kept, "the same token");
        let access = token(&refreshed, "accessToken");
        assert_ok(get(&app, "/auth/me", Some(&access)).await, 200).await;
    }
    let access = token(
        &assert_ok(
            post(&app, "/auth/refresh-token", json!({"refreshToken": kept})).await,
            200,
        )
        .await,
        "accessToken",
    );
    let res = send(&app, reqwest::Method::POST, "/auth/logout", &access, None).await;
    assert_ok(res, 200).await;
    let res = post(&app, "/auth/refresh-token", json!({"refreshToken": kept})).await;
    assert_err(res, 401, "invalid_refresh_token").await;
    assert_err(
        get(&app, "/auth/me", Some(&access)).await,
        401,
        "invalid_token",
    )
    .await;
    // The signup's own access token belonged to the same login.
    assert_err(
        get(&app, "/auth/me", Some(&token(&auth, "token"))).await,
        401,
        "invalid_token",
    )
    .await;
}

/// `rotate_refresh_tokens = true`: single use with reuse detection.
#[actix_web::test]
async fn refresh_rotates_and_reuse_revokes_the_login() {
    let app = app_with(|s| s.services.marketplace.rotate_refresh_tokens = true).await;
    let auth = signup(&app, &phone(), "secret1").await;
    let first = token(&auth, "refreshToken");
    let res = post(&app, "/auth/refresh-token", json!({"refreshToken": first})).await;
    let rotated = assert_ok(res, 200).await;
    let access = token(&rotated, "accessToken");
    let second = token(&rotated, "refreshToken");
    assert_ne!(first, second);
    assert_ok(get(&app, "/auth/me", Some(&access)).await, 200).await;
    // The first token again: refused, and the whole family with it.
    let res = post(&app, "/auth/refresh-token", json!({"refreshToken": first})).await;
    assert_err(res, 401, "invalid_refresh_token").await;
    let res = post(&app, "/auth/refresh-token", json!({"refreshToken": second})).await;
    assert_err(res, 401, "invalid_refresh_token").await;

    let res = post(
        &app,
        "/auth/refresh-token",
        json!({"refreshToken": "made-up"}),
    )
    .await;
    assert_err(res, 401, "invalid_refresh_token").await;
    let v = assert_err(
        post(&app, "/auth/refresh-token", json!({})).await,
        400,
        "validation_error",
    )
    .await;
    assert_eq!(v["details"]["field"], "refreshToken");
}

#[actix_web::test]
async fn refresh_tokens_last_thirty_days() {
    let app = app().await;
    let p = phone();
    signup(&app, &p, "secret1").await;
    let kept = login_refresh(&app, &p).await;
    let lapsed = login_refresh(&app, &p).await;
    app.advance(Duration::days(29));
    let res = post(&app, "/auth/refresh-token", json!({"refreshToken": kept})).await;
    assert_ok(res, 200).await;
    app.advance(Duration::days(1));
    let res = post(&app, "/auth/refresh-token", json!({"refreshToken": lapsed})).await;
    assert_err(res, 401, "invalid_refresh_token").await;
}

#[actix_web::test]
async fn codes_are_attempt_limited_and_expire() {
    let app = app().await;
    let p = phone();
    signup_unverified(&app, &p, "secret1").await;
    let code = app.last_code(&p);
    let wrong = if code == "111111" { "222222" } else { "111111" };
    for remaining in (0..5).rev() {
        let res = verify_signup(&app, &p, wrong).await;
        let v = assert_err(res, 400, "invalid_otp").await;
        assert_eq!(v["details"]["attemptsRemaining"], remaining, "{v}");
    }
    // The fifth wrong guess burnt the code: the right one no longer works.
    let res = verify_signup(&app, &p, &code).await;
    assert_err(res, 400, "invalid_otp").await;

    let res = resend(&app, &p, "signup").await;
    assert_ok(res, 200).await;
    let fresh = app.last_code(&p);
    app.advance(Duration::minutes(10));
    let res = verify_signup(&app, &p, &fresh).await;
    assert_err(res, 400, "otp_expired").await;

    let res = resend(&app, &p, "login").await;
    let v = assert_err(res, 400, "validation_error").await;
    assert_eq!(v["details"]["field"], "type");
}

#[actix_web::test]
async fn password_reset_takes_a_code_then_a_single_use_token() {
    let app = app().await;
    let p = phone();
    let auth = signup(&app, &p, "secret1").await;
    // An unknown phone gets the same answer and no SMS.
    let stranger = phone();
    let a =
        assert_ok_message(post(&app, "/auth/forgot-password", json!({"phone": stranger})).await)
            .await;
    assert!(app.outbox_for(&stranger).is_empty());
    let b = assert_ok_message(post(&app, "/auth/forgot-password", json!({"phone": p})).await).await;
    assert_eq!(a, b);
    let code = app.last_code(&p);
    // A signup code does not reset a password.
    let res = verify_signup(&app, &p, &code).await;
    assert_err(res, 400, "invalid_otp").await;
    let res = post(
        &app,
        "/auth/verify-forgot-password",
        json!({"phone": p, "otp": code}),
    )
    .await;
    let reset = assert_ok(res, 200).await;
    let temp = token(&reset, "token");
    assert_eq!(reset["expiresIn"], 900);

    let res = post(
        &app,
        "/auth/reset-password",
        json!({"token": temp, "newPassword": "123"}),
    )
    .await;
    let v = assert_err(res, 400, "validation_error").await;
    assert_eq!(v["details"]["field"], "newPassword");
    let body = json!({"token": temp, "newPassword": "new-secret"});
    assert_ok(post(&app, "/auth/reset-password", body.clone()).await, 200).await;
    assert_err(
        post(&app, "/auth/reset-password", body).await,
        400,
        "invalid_reset_token",
    )
    .await;

    let old = post(
        &app,
        "/auth/login",
        json!({"phone": p, "password": "secret1"}),
    )
    .await;
    assert_err(old, 401, "invalid_credentials").await;
    let new = post(
        &app,
        "/auth/login",
        json!({"phone": p, "password": "new-secret"}),
    )
    .await;
    assert_ok(new, 200).await;
    // The reset ended the earlier sessions.
    let res = post(
        &app,
        "/auth/refresh-token",
        json!({"refreshToken": token(&auth, "refreshToken")}),
    )
    .await;
    assert_err(res, 401, "invalid_refresh_token").await;
}

#[actix_web::test]
async fn reset_tokens_expire() {
    let app = app().await;
    let p = phone();
    signup(&app, &p, "secret1").await;
    let res = resend(&app, &p, "password_reset").await;
    assert_ok(res, 200).await;
    let code = app.last_code(&p);
    let res = post(
        &app,
        "/auth/verify-forgot-password",
        json!({"phone": p, "otp": code}),
    )
    .await;
    let temp = token(&assert_ok(res, 200).await, "token");
    app.advance(Duration::minutes(15));
    let res = post(
        &app,
        "/auth/reset-password",
        json!({"token": temp, "newPassword": "new-secret"}),
    )
    .await;
    assert_err(res, 400, "invalid_reset_token").await;
}

async fn assert_ok_message(res: Response) -> Value {
    assert_eq!(res.status(), 200);
    let v = json_body(res).await;
    assert_eq!(v["success"], true);
    v["message"].clone()
}

async fn login_refresh(app: &TestApp, p: &str) -> String {
    let res = post(
        app,
        "/auth/login",
        json!({"phone": p, "password": "secret1"}),
    )
    .await;
    token(&assert_ok(res, 200).await, "refreshToken")
}

async fn verify_signup(app: &TestApp, p: &str, otp: &str) -> Response {
    post(app, "/auth/verify-signup", json!({"phone": p, "otp": otp})).await
}

async fn resend(app: &TestApp, p: &str, kind: &str) -> Response {
    post(app, "/auth/resend-otp", json!({"phone": p, "type": kind})).await
}

#[actix_web::test]
async fn codes_a_day_past_expiry_are_purged() {
    let app = app().await;
    let p = phone();
    signup_unverified(&app, &p, "secret1").await;
    let code = app.last_code(&p);
    app.advance(Duration::minutes(10));
    app.jobs.run_due().await.unwrap();
    // Expired but kept: the client is told so.
    assert_err(verify_signup(&app, &p, &code).await, 400, "otp_expired").await;
    let interval = app.settings.retention.interval_secs as i64;
    app.advance(Duration::days(1) + Duration::seconds(interval));
    app.jobs.run_due().await.unwrap();
    // Purged: there is no code left to have expired.
    assert_err(verify_signup(&app, &p, &code).await, 400, "invalid_otp").await;
}

async fn login_with(app: &TestApp, p: &str, password: &str) -> Response {
    post(
        app,
        "/auth/login",
        json!({"phone": p, "password": password}),
    )
    .await
}

/// Guessing is bounded per account, not only per address: wrong passwords in a row lock the
/// account, each lock twice as long; a right password after the lock clears the count.
#[actix_web::test]
async fn wrong_passwords_lock_the_account_for_longer_each_time() {
    let app = app_with(|s| {
        s.services.marketplace.lockout.max_failures = 3;
        s.services.marketplace.lockout.base_lock_secs = 60;
    })
    .await;
    let p = phone();
    signup(&app, &p, "secret1").await;
    for lock_secs in [60, 120] {
        for _ in 0..3 {
            let res = login_with(&app, &p, "wrong-one").await;
            assert_err(res, 401, "invalid_credentials").await;
        }
        // Even the right password waits out the lock.
        let v = assert_err(login_with(&app, &p, "secret1").await, 429, "account_locked").await;
        assert_eq!(v["retryAfter"], lock_secs, "{v}");
        app.advance(Duration::seconds(lock_secs - 1));
        assert_err(login_with(&app, &p, "secret1").await, 429, "account_locked").await;
        app.advance(Duration::seconds(1));
    }
    assert_ok(login_with(&app, &p, "secret1").await, 200).await;
    // The right password cleared the count: the next lock is the first again.
    for _ in 0..3 {
        assert_err(
            login_with(&app, &p, "nope-nope").await,
            401,
            "invalid_credentials",
        )
        .await;
    }
    let v = assert_err(login_with(&app, &p, "secret1").await, 429, "account_locked").await;
    assert_eq!(v["retryAfter"], 60, "{v}");
    // A password reset lifts the lock.
    assert_ok(
        post(&app, "/auth/forgot-password", json!({"phone": p})).await,
        200,
    )
    .await;
    let otp = app.last_code(&p);
    let reset = post(
        &app,
        "/auth/verify-forgot-password",
        json!({"phone": p, "otp": otp}),
    )
    .await;
    let temp = token(&assert_ok(reset, 200).await, "token");
    let body = json!({"token": temp, "newPassword": "brand-new"});
    assert_ok(post(&app, "/auth/reset-password", body).await, 200).await;
    assert_ok(login_with(&app, &p, "brand-new").await, 200).await;
}

/// Fresh codes do not buy fresh guesses: a phone takes 10 guesses over a rolling 24 hours.
#[actix_web::test]
async fn a_phone_takes_ten_guesses_a_day_however_many_codes_are_sent() {
    // Codes back to back: the guesses are the subject here (codes.rs: the cooldown).
    let app = app_with(|s| s.services.marketplace.otp_cooldown_secs = 0).await;
    let p = phone();
    // No code tried yet (verifying would be one guess).
    signup_unverified(&app, &p, "secret1").await;
    let forgot = || post(&app, "/auth/forgot-password", json!({"phone": p}));
    let verify = |otp: String| {
        post(
            &app,
            "/auth/verify-forgot-password",
            json!({"phone": p, "otp": otp}),
        )
    };
    for _ in 0..2 {
        assert_ok(forgot().await, 200).await;
        let wrong = if app.last_code(&p) == "111111" {
            "222222"
        } else {
            "111111"
        };
        for _ in 0..5 {
            assert_err(verify(wrong.into()).await, 400, "invalid_otp").await;
        }
    }
    assert_ok(forgot().await, 200).await;
    let v = assert_err(verify(app.last_code(&p)).await, 429, "otp_locked").await;
    assert!(v["retryAfter"].as_i64().unwrap() > 23 * 3600, "{v}");
    app.advance(Duration::hours(24));
    assert_ok(forgot().await, 200).await;
    assert_ok(verify(app.last_code(&p)).await, 200).await;
}
