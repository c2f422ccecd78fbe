//! The per-phone cap on wrong OTP codes over a rolling 24 hours.

use crate::helpers::*;
use chrono::{DateTime, Duration, Utc};
use serde_json::{json, Value};

/// A code a minute after whatever came before (the cooldown between codes is codes.rs's).
async fn send(app: &TestApp, p: &str) -> String {
    app.advance(Duration::seconds(60));
    let res = app
        .post("/auth/otp/send", json!({"phone": p, "purpose": "signup"}))
        .await;
    assert_eq!(res.status(), 200, "send");
    app.last_code(p)
}

async fn verify(app: &TestApp, p: &str, code: &str) -> reqwest::Response {
    app.post(
        "/auth/otp/verify",
        json!({"phone": p, "code": code, "purpose": "signup"}),
    )
    .await
}

fn wrong(code: &str) -> &'static str {
    if code == "000000" {
        "111111"
    } else {
        "000000"
    }
}

async fn fail(app: &TestApp, p: &str, code: &str, times: usize) {
    for _ in 0..times {
        assert_error(verify(app, p, wrong(code)).await, 400, "INVALID_OTP").await;
    }
}

async fn assert_locked(res: reqwest::Response) -> (Value, i64) {
    let retry: i64 = res.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    let v = assert_error(res, 429, "OTP_LOCKED").await;
    (v, retry)
}

fn until(v: &Value) -> DateTime<Utc> {
    v["error"]["details"]["locked_until"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap()
}

#[actix_web::test]
async fn ten_wrong_codes_in_a_day_lock_verification_for_the_phone() {
    let app = spawn_app().await;
    assert_eq!(app.settings.services.identity.otp_failed_per_day, 10);
    let p = phone();
    // Two fresh codes, each guessed wrong up to its own limit of five.
    let a = send(&app, &p).await;
    fail(&app, &p, &a, 5).await;
    let b = send(&app, &p).await;
    fail(&app, &p, &b, 5).await;
    let c = send(&app, &p).await;
    let started = Utc::now();
    let (v, retry) = assert_locked(verify(&app, &p, &c).await).await;
    assert!((86_000..=86_400).contains(&retry), "{retry}");
    assert!(until(&v) > started + Duration::hours(23), "{v}");
    // Wrong guesses while locked are refused the same way and do not extend the lock.
    assert_locked(verify(&app, &p, wrong(&c)).await).await;
    // Another phone is unaffected.
    let q = phone();
    let code = send(&app, &q).await;
    assert_eq!(verify(&app, &q, &code).await.status(), 200);

    app.advance(Duration::hours(24) + Duration::seconds(1));
    let d = send(&app, &p).await;
    let res = verify(&app, &p, &d).await;
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
}

#[actix_web::test]
async fn the_window_rolls_failures_23_hours_old_count_25_do_not() {
    let app = spawn_app_with(|s| s.services.identity.otp_failed_per_day = 3).await;
    let p = phone();
    let a = send(&app, &p).await;
    fail(&app, &p, &a, 2).await;
    let t0 = Utc::now();
    app.advance(Duration::hours(2));
    let b = send(&app, &p).await;
    fail(&app, &p, &b, 1).await;
    let (v, _) = assert_locked(verify(&app, &p, &b).await).await;
    // Lifts when the first two are 24 hours old.
    let lifts = until(&v) - t0;
    assert!(
        lifts > Duration::hours(23) && lifts <= Duration::hours(24) + Duration::minutes(1),
        "{v}"
    );

    app.advance(Duration::hours(21)); // the first failures are 23 hours old
    let c = send(&app, &p).await;
    assert_locked(verify(&app, &p, &c).await).await;

    app.advance(Duration::hours(2)); // 25 hours old; the one from hour 2 still counts
    let d = send(&app, &p).await;
    assert_eq!(verify(&app, &p, &d).await.status(), 200);
    // One failure left in the window: two more wrong codes lock it again.
    let e = send(&app, &p).await;
    fail(&app, &p, &e, 2).await;
    assert_locked(verify(&app, &p, &e).await).await;
}
