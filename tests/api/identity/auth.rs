use crate::helpers::*;
use chrono::Duration;
use serde_json::{json, Value};
use switchboard::core::config::LimitSettings;

#[actix_web::test]
async fn otp_send_masks_phone_and_writes_outbox() {
    let app = spawn_app().await;
    let p = phone();
    let res = app
        .post("/auth/otp/send", json!({"phone": p, "purpose": "signup"}))
        .await;
    assert_eq!(res.status(), 200);
    for h in [
        "x-ratelimit-limit",
        "x-ratelimit-remaining",
        "x-ratelimit-reset",
    ] {
        assert!(res.headers().contains_key(h), "{h}");
    }
    let v = body(res).await;
    assert_eq!(v["success"], true);
    assert_eq!(v["data"]["expires_in"], 300);
    let msg = v["data"]["message"].as_str().unwrap();
    assert!(msg.contains('*') && !msg.contains(&p), "{msg}");
    let sms = app.outbox_for(&p);
    assert_eq!(sms.len(), 1);
    assert_eq!(sms[0]["channel"], "sms");
    assert_eq!(sms[0]["service"], "identity");
}

#[actix_web::test]
async fn otp_send_rejects_bad_input() {
    let app = spawn_app().await;
    assert_error(
        app.post(
            "/auth/otp/send",
            json!({"phone": "12345", "purpose": "signup"}),
        )
        .await,
        400,
        "INVALID_PHONE",
    )
    .await;
    assert_error(
        app.post(
            "/auth/otp/send",
            json!({"phone": phone(), "purpose": "login"}),
        )
        .await,
        400,
        "INVALID_REQUEST",
    )
    .await;
    assert_error(
        app.post("/auth/otp/send", json!({"phone": phone()})).await,
        400,
        "INVALID_REQUEST",
    )
    .await;
    let res = app
        .client
        .post(app.url("/auth/otp/send"))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_error(res, 400, "INVALID_REQUEST").await;
}

#[actix_web::test]
async fn phone_forms_are_one_account() {
    let app = spawn_app().await;
    app.signup("+4917667111638", &handle(), "1234").await;
    for form in ["+49 176 671 11 638", "+49-176-671-11-638"] {
        let res = app
            .post(
                "/auth/otp/send",
                json!({"phone": form, "purpose": "signup"}),
            )
            .await;
        assert_error(res, 409, "PHONE_EXISTS").await;
    }
    let res = app
        .post(
            "/auth/signin",
            json!({"phone": "+49 176 671 11 638", "pin": "1234"}),
        )
        .await;
    assert_eq!(res.status(), 200);
}

#[actix_web::test]
async fn signup_flow_returns_user_and_tokens_with_country() {
    let app = spawn_app().await;
    let p = phone();
    let h = handle();
    let data = app.signup(&p, &h, "123456").await;
    assert_eq!(data["user"]["phone"], p);
    assert_eq!(data["user"]["handle"], h);
    assert_eq!(data["user"]["kyc_status"], "none");
    assert_eq!(data["user"]["name"], "Test User");
    assert_eq!(data["expires_in"], 900);
    assert!(data["refresh_token"].as_str().unwrap().len() > 30);
    let me = body(
        app.get_auth("/users/me", data["access_token"].as_str().unwrap())
            .await,
    )
    .await;
    assert_eq!(me["data"]["country"], "DE");
    assert_eq!(me["data"]["phone_verified"], true);
}

#[actix_web::test]
async fn otp_purpose_and_existence_rules() {
    let app = spawn_app().await;
    let p = phone();
    assert_error(
        app.post(
            "/auth/otp/send",
            json!({"phone": p, "purpose": "pin_reset"}),
        )
        .await,
        404,
        "PHONE_NOT_FOUND",
    )
    .await;
    app.post("/auth/otp/send", json!({"phone": p, "purpose": "signup"}))
        .await;
    let code = app.last_code(&p);
    // A signup code cannot be used for a PIN reset.
    let res = app
        .post(
            "/auth/otp/verify",
            json!({"phone": p, "code": code, "purpose": "pin_reset"}),
        )
        .await;
    assert_error(res, 400, "INVALID_OTP").await;
    let res = app
        .post(
            "/auth/otp/verify",
            json!({"phone": p, "code": code, "purpose": "signup"}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let v = body(res).await;
    assert_eq!(v["data"]["verified"], true);
    assert_eq!(v["data"]["expires_in"], 600);
    // Single use.
    let res = app
        .post(
            "/auth/otp/verify",
            json!({"phone": p, "code": code, "purpose": "signup"}),
        )
        .await;
    assert_error(res, 400, "INVALID_OTP").await;
}

#[actix_web::test]
async fn otp_expires_after_300_seconds() {
    let app = spawn_app().await;
    let p = phone();
    app.post("/auth/otp/send", json!({"phone": p, "purpose": "signup"}))
        .await;
    let code = app.last_code(&p);
    app.advance(Duration::seconds(301));
    let res = app
        .post(
            "/auth/otp/verify",
            json!({"phone": p, "code": code, "purpose": "signup"}),
        )
        .await;
    assert_error(res, 400, "OTP_EXPIRED").await;
}

#[actix_web::test]
async fn otp_five_attempts_then_too_many() {
    let app = spawn_app().await;
    let p = phone();
    app.post("/auth/otp/send", json!({"phone": p, "purpose": "signup"}))
        .await;
    let code = app.last_code(&p);
    let wrong = if code == "000000" { "111111" } else { "000000" };
    for left in (0..5).rev() {
        let res = app
            .post(
                "/auth/otp/verify",
                json!({"phone": p, "code": wrong, "purpose": "signup"}),
            )
            .await;
        let v = assert_error(res, 400, "INVALID_OTP").await;
        assert_eq!(v["error"]["details"]["attempts_remaining"], left);
    }
    // Even the right code is refused now.
    let res = app
        .post(
            "/auth/otp/verify",
            json!({"phone": p, "code": code, "purpose": "signup"}),
        )
        .await;
    assert_error(res, 429, "TOO_MANY_ATTEMPTS").await;
}

#[actix_web::test]
async fn concurrent_verifies_of_one_code_exactly_one_wins() {
    let app = spawn_app().await;
    let p = phone();
    app.post("/auth/otp/send", json!({"phone": p, "purpose": "signup"}))
        .await;
    let code = app.last_code(&p);
    let body = json!({"phone": p, "code": code, "purpose": "signup"});
    let reqs = (0..4).map(|_| app.post("/auth/otp/verify", body.clone()));
    let results = futures_util::future::join_all(reqs).await;
    let wins = results.iter().filter(|r| r.status() == 200).count();
    assert_eq!(wins, 1);
}

/// Codes back to back: these tests are about the hourly budgets (codes.rs: the cooldown).
fn no_cooldown(s: &mut switchboard::settings::Settings) {
    s.services.identity.otp_cooldown_secs = 0;
}

#[actix_web::test]
async fn otp_send_limit_holds_across_an_hour_boundary() {
    let app = spawn_app_with(no_cooldown).await;
    // Move the clock to 30 s before the next full hour.
    let now = app.now();
    let into_hour = now.timestamp().rem_euclid(3600);
    app.advance(Duration::seconds(3600 - into_hour - 30));
    let p = phone();
    let send = || app.post("/auth/otp/send", json!({"phone": p, "purpose": "signup"}));
    for i in 0..3 {
        assert_eq!(send().await.status(), 200, "send {i} before the hour");
    }
    // A minute later, past the hour: a fixed window would allow three more.
    app.advance(Duration::seconds(60));
    let res = send().await;
    let retry: i64 = res.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((3500..=3541).contains(&retry), "retry after {retry}");
    assert_error(res, 429, "RATE_LIMITED").await;
    // An hour after the burst the budget is back.
    app.advance(Duration::seconds(3600 - 60));
    assert_eq!(send().await.status(), 200);
}

#[actix_web::test]
async fn otp_send_is_limited_per_phone() {
    let app = spawn_app_with(no_cooldown).await;
    let p = phone();
    for i in 0..3 {
        let res = app
            .post("/auth/otp/send", json!({"phone": p, "purpose": "signup"}))
            .await;
        assert_eq!(res.status(), 200, "send {i}");
    }
    // Another written form of the same number shares the budget.
    let spaced = format!("{} {}", &p[..3], &p[3..]);
    let res = app
        .post(
            "/auth/otp/send",
            json!({"phone": spaced, "purpose": "signup"}),
        )
        .await;
    assert_eq!(res.headers()["x-ratelimit-remaining"], "0");
    assert!(res.headers().contains_key("retry-after"));
    assert_error(res, 429, "RATE_LIMITED").await;
    // A different phone is unaffected.
    let res = app
        .post(
            "/auth/otp/send",
            json!({"phone": phone(), "purpose": "signup"}),
        )
        .await;
    assert_eq!(res.status(), 200);
    app.advance(Duration::hours(1));
    let res = app
        .post("/auth/otp/send", json!({"phone": p, "purpose": "signup"}))
        .await;
    assert_eq!(res.status(), 200);
}

#[actix_web::test]
async fn signup_rejects_bad_input_and_conflicts() {
    let app = spawn_app().await;
    let taken = handle();
    app.signup(&phone(), &taken, "1234").await;
    let p = phone();
    let temp = app.temp_token(&p, "signup").await;
    let cases = [
        (
            json!({"temp_token": temp, "pin": "12", "handle": handle()}),
            400,
            "INVALID_PIN",
        ),
        (
            json!({"temp_token": temp, "pin": "12a4", "handle": handle()}),
            400,
            "INVALID_PIN",
        ),
        (
            json!({"temp_token": temp, "pin": "1234", "handle": "a"}),
            400,
            "INVALID_HANDLE",
        ),
        (
            json!({"temp_token": temp, "pin": "1234", "handle": "has space"}),
            400,
            "INVALID_HANDLE",
        ),
        (
            json!({"temp_token": "nope", "pin": "1234", "handle": handle()}),
            400,
            "INVALID_TEMP_TOKEN",
        ),
        (
            json!({"temp_token": temp, "pin": "1234", "handle": "admin"}),
            409,
            "HANDLE_RESERVED",
        ),
        (
            json!({"temp_token": temp, "pin": "1234", "handle": taken}),
            409,
            "HANDLE_TAKEN",
        ),
        (
            json!({"temp_token": temp, "pin": "1234", "handle": taken.replace('o', "0").replace('l', "1")}),
            409,
            "HANDLE_TAKEN",
        ),
        (
            json!({"temp_token": temp, "pin": "1234"}),
            400,
            "INVALID_REQUEST",
        ),
    ];
    for (req, status, code) in cases {
        assert_error(app.post("/auth/signup", req).await, status, code).await;
    }
    // None of the failures used up the temp token.
    let res = app
        .post(
            "/auth/signup",
            json!({"temp_token": temp, "pin": "1234", "handle": handle()}),
        )
        .await;
    assert_eq!(res.status(), 201);
    // It is single use.
    let res = app
        .post(
            "/auth/signup",
            json!({"temp_token": temp, "pin": "1234", "handle": handle()}),
        )
        .await;
    assert_error(res, 400, "INVALID_TEMP_TOKEN").await;
}

#[actix_web::test]
async fn temp_token_expires_after_600_seconds_and_is_bound_to_purpose() {
    let app = spawn_app().await;
    let p = phone();
    let temp = app.temp_token(&p, "signup").await;
    let res = app
        .post(
            "/auth/pin/reset",
            json!({"temp_token": temp, "new_pin": "1234"}),
        )
        .await;
    assert_error(res, 400, "INVALID_TEMP_TOKEN").await;
    app.advance(Duration::seconds(601));
    let res = app
        .post(
            "/auth/signup",
            json!({"temp_token": temp, "pin": "1234", "handle": handle()}),
        )
        .await;
    assert_error(res, 400, "INVALID_TEMP_TOKEN").await;
}

#[actix_web::test]
async fn signin_success_and_errors() {
    let app = spawn_app().await;
    let p = phone();
    app.signup(&p, &handle(), "4321").await;
    let res = app
        .client
        .post(app.url("/auth/signin"))
        .header(
            "user-agent",
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Safari/604.1",
        )
        .json(&json!({"phone": p, "pin": "4321"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let v = body(res).await;
    assert_eq!(v["data"]["user"]["kyc_status"], "none");
    assert!(v["data"]["access_token"].is_string());
    // Without device_name/platform the User-Agent names the session.
    let sessions = body(
        app.get_auth("/sessions", v["data"]["access_token"].as_str().unwrap())
            .await,
    )
    .await;
    let current = sessions["data"]["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["current"] == true)
        .unwrap()
        .clone();
    assert_eq!(current["platform"], "ios");
    assert!(
        current["device_name"].as_str().unwrap().contains("iPhone"),
        "{current}"
    );
    assert_error(
        app.post("/auth/signin", json!({"phone": p, "pin": "9999"}))
            .await,
        401,
        "INVALID_CREDENTIALS",
    )
    .await;
    assert_error(
        app.post("/auth/signin", json!({"phone": phone(), "pin": "9999"}))
            .await,
        404,
        "ACCOUNT_NOT_FOUND",
    )
    .await;
    assert_error(
        app.post("/auth/signin", json!({"phone": "abc", "pin": "9999"}))
            .await,
        400,
        "INVALID_PHONE",
    )
    .await;
    assert_error(
        app.post("/auth/signin", json!({"phone": p, "pin": "99"}))
            .await,
        400,
        "INVALID_PIN",
    )
    .await;
}

#[actix_web::test]
async fn lockout_after_five_wrong_pins_is_observable_and_clears() {
    let app = spawn_app().await;
    let p = phone();
    app.signup(&p, &handle(), "4321").await;
    for _ in 0..5 {
        assert_error(
            app.post("/auth/signin", json!({"phone": p, "pin": "0000"}))
                .await,
            401,
            "INVALID_CREDENTIALS",
        )
        .await;
    }
    // Locked: even the right PIN is refused, and the lock wins over the rate limit.
    let v = assert_error(
        app.post("/auth/signin", json!({"phone": p, "pin": "4321"}))
            .await,
        403,
        "ACCOUNT_LOCKED",
    )
    .await;
    assert!(v["error"]["details"]["locked_until"].is_string());
    assert_error(
        app.post("/auth/signin", json!({"phone": p, "pin": "4321"}))
            .await,
        403,
        "ACCOUNT_LOCKED",
    )
    .await;
    app.advance(Duration::minutes(16));
    let res = app
        .post("/auth/signin", json!({"phone": p, "pin": "4321"}))
        .await;
    assert_eq!(res.status(), 200);
}

#[actix_web::test]
async fn repeated_locks_double_in_length() {
    let app = spawn_app().await;
    let p = phone();
    app.signup(&p, &handle(), "4321").await;
    for _ in 0..5 {
        app.post("/auth/signin", json!({"phone": p, "pin": "0000"}))
            .await;
    }
    app.advance(Duration::minutes(16));
    for _ in 0..5 {
        app.post("/auth/signin", json!({"phone": p, "pin": "0000"}))
            .await;
    }
    // Second lock is 30 minutes: still locked after 16.
    app.advance(Duration::minutes(16));
    assert_error(
        app.post("/auth/signin", json!({"phone": p, "pin": "4321"}))
            .await,
        403,
        "ACCOUNT_LOCKED",
    )
    .await;
    app.advance(Duration::minutes(15));
    assert_eq!(
        app.post("/auth/signin", json!({"phone": p, "pin": "4321"}))
            .await
            .status(),
        200
    );
}

#[actix_web::test]
async fn signin_is_rate_limited_per_phone() {
    let app = spawn_app().await;
    let p = phone();
    for _ in 0..5 {
        assert_error(
            app.post("/auth/signin", json!({"phone": p, "pin": "1234"}))
                .await,
            404,
            "ACCOUNT_NOT_FOUND",
        )
        .await;
    }
    assert_error(
        app.post("/auth/signin", json!({"phone": p, "pin": "1234"}))
            .await,
        429,
        "RATE_LIMITED",
    )
    .await;
}

#[actix_web::test]
async fn a_stranger_cannot_spend_the_owners_codes_or_sign_ins() {
    let app = spawn_app_with(|s| {
        s.server.trusted_proxies = vec!["127.0.0.0/8".into()];
        // A proxy in front counts as exposed; this is a development machine.
        s.server.environment = "development".into();
        let l = &mut s.services.identity.rate_limits;
        l.otp_send_per_phone = LimitSettings::new(5, 3600);
        l.signin_per_phone = LimitSettings::new(7, 900);
        no_cooldown(s);
    })
    .await;
    let from = |path: &str, addr: &str, body: Value| {
        app.client
            .post(app.url(path))
            .header("X-Forwarded-For", addr)
            .json(&body)
            .send()
    };
    let p = phone();
    let send = json!({"phone": p, "purpose": "signup"});
    for i in 0..3 {
        let res = from("/auth/otp/send", "198.51.100.7", send.clone())
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "stranger's send {i}");
    }
    let res = from("/auth/otp/send", "198.51.100.7", send.clone())
        .await
        .unwrap();
    assert_error(res, 429, "RATE_LIMITED").await;
    // The owner's own address still has its share; the phone's ceiling (5) stops the rest.
    for addr in ["203.0.113.20", "203.0.113.21"] {
        let res = from("/auth/otp/send", addr, send.clone()).await.unwrap();
        assert_eq!(res.status(), 200, "send from {addr}");
    }
    let res = from("/auth/otp/send", "203.0.113.22", send).await.unwrap();
    assert_error(res, 429, "RATE_LIMITED").await;

    // Sign-ins likewise: five wrong tries from a stranger leave the owner their own.
    let q = phone();
    let signin = json!({"phone": q, "pin": "1234"});
    for _ in 0..5 {
        let res = from("/auth/signin", "198.51.100.7", signin.clone())
            .await
            .unwrap();
        assert_error(res, 404, "ACCOUNT_NOT_FOUND").await;
    }
    let res = from("/auth/signin", "198.51.100.7", signin.clone())
        .await
        .unwrap();
    assert_error(res, 429, "RATE_LIMITED").await;
    let res = from("/auth/signin", "203.0.113.20", signin).await.unwrap();
    assert_error(res, 404, "ACCOUNT_NOT_FOUND").await;
}

#[actix_web::test]
async fn otp_send_and_signin_are_limited_per_ip_across_phones() {
    // Budgets lowered so a few calls reach them; every call uses a new phone,
    // so only the per-IP bucket can refuse.
    let app = spawn_app_with(|s| {
        let limits = &mut s.services.identity.rate_limits;
        limits.otp_send_per_ip = LimitSettings::new(4, 3600);
        limits.signin_per_ip = LimitSettings::new(3, 900);
    })
    .await;
    for i in 0..4 {
        let res = app
            .post(
                "/auth/otp/send",
                json!({"phone": phone(), "purpose": "signup"}),
            )
            .await;
        assert_eq!(res.status(), 200, "send {i}");
    }
    let res = app
        .post(
            "/auth/otp/send",
            json!({"phone": phone(), "purpose": "signup"}),
        )
        .await;
    assert!(res.headers().contains_key("retry-after"));
    assert_error(res, 429, "RATE_LIMITED").await;

    for _ in 0..3 {
        assert_error(
            app.post("/auth/signin", json!({"phone": phone(), "pin": "1234"}))
                .await,
            404,
            "ACCOUNT_NOT_FOUND",
        )
        .await;
    }
    assert_error(
        app.post("/auth/signin", json!({"phone": phone(), "pin": "1234"}))
            .await,
        429,
        "RATE_LIMITED",
    )
    .await;
}

#[actix_web::test]
async fn pin_reset_changes_pin_clears_lock_and_signs_out_others() {
    let app = spawn_app().await;
    let p = phone();
    let first = app.signup(&p, &handle(), "1111").await;
    for _ in 0..5 {
        app.post("/auth/signin", json!({"phone": p, "pin": "0000"}))
            .await;
    }
    let temp = app.temp_token(&p, "pin_reset").await;
    assert_error(
        app.post(
            "/auth/pin/reset",
            json!({"temp_token": temp, "new_pin": "1"}),
        )
        .await,
        400,
        "INVALID_PIN",
    )
    .await;
    let res = app
        .post(
            "/auth/pin/reset",
            json!({"temp_token": temp, "new_pin": "2222"}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let v = body(res).await;
    assert!(v["data"]["message"].is_string());
    assert!(v["data"]["access_token"].is_string());
    assert_eq!(v["data"]["expires_in"], 900);
    // Old sessions are gone, the new PIN works, the lock is cleared.
    assert_error(
        app.get_auth("/users/me", first["access_token"].as_str().unwrap())
            .await,
        401,
        "INVALID_TOKEN",
    )
    .await;
    assert_eq!(
        app.get_auth("/users/me", v["data"]["access_token"].as_str().unwrap())
            .await
            .status(),
        200
    );
    // The five failed sign-ins used the per-phone window; the next one opens a fresh one.
    app.advance(Duration::minutes(15));
    assert_eq!(
        app.post("/auth/signin", json!({"phone": p, "pin": "2222"}))
            .await
            .status(),
        200
    );
    assert_error(
        app.post(
            "/auth/pin/reset",
            json!({"temp_token": temp, "new_pin": "3333"}),
        )
        .await,
        400,
        "INVALID_TEMP_TOKEN",
    )
    .await;
}

#[actix_web::test]
async fn concurrent_signups_for_one_handle_one_wins() {
    let app = spawn_app().await;
    let h = handle();
    let (p1, p2) = (phone(), phone());
    let (t1, t2) = (
        app.temp_token(&p1, "signup").await,
        app.temp_token(&p2, "signup").await,
    );
    let (r1, r2) = futures_util::join!(
        app.post(
            "/auth/signup",
            json!({"temp_token": t1, "pin": "1234", "handle": h})
        ),
        app.post(
            "/auth/signup",
            json!({"temp_token": t2, "pin": "1234", "handle": h})
        )
    );
    let mut statuses = [r1.status().as_u16(), r2.status().as_u16()];
    statuses.sort();
    assert_eq!(statuses, [201, 409]);
}
