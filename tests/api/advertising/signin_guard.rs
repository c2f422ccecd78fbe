//! Sign-in abuse (issue 32): advertisers' and administrators' password sign-in locks per
//! address after failures in a row, from any node and for unknown addresses alike, and
//! administrators' TOTP second factor (enrol, confirm, codes once each, recovery codes,
//! disable, and the policy that requires it).

use super::admin_accounts::{admin, login as admin_login};
use super::advertisers::{advertiser, login, mails, nth_link, PASSWORD};
use super::*;
use crate::helpers::TestApp;
use chrono::Duration;
use serde_json::json;
use switchboard::core::totp;

const LOCK_SUBJECT: &str = "Sign-in to your account is paused";

/// Three failures in a row lock, for a minute, doubling up to ten.
fn three_strikes(s: &mut switchboard::settings::Settings) {
    let a = &mut s.services.advertising;
    a.signin_max_failures = 3;
    a.signin_lock_secs = 60;
    a.signin_max_lock_secs = 600;
}

/// Asserts a 429 `account_locked` waiting `secs`, in the body and the header; answers the body.
async fn locked(res: Response, secs: i64) -> Value {
    let header = res
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_owned());
    let body = refused(res, 429, "account_locked").await;
    assert_eq!(body["retryAfter"], secs, "{body}");
    assert_eq!(header.as_deref(), Some(secs.to_string().as_str()));
    assert!(
        body.get("data").is_none() && body.get("token").is_none(),
        "{body}"
    );
    body
}

/// `n` wrong passwords for the advertiser `email`, each refused as such.
async fn wrong_passwords(app: &TestApp, email: &str, n: usize) {
    for _ in 0..n {
        refused(
            login(app, email, "wrong password").await,
            401,
            "invalid_credentials",
        )
        .await;
    }
}

fn lock_mails(all: &[Value]) -> usize {
    all.iter().filter(|m| m["subject"] == LOCK_SUBJECT).count()
}

#[actix_web::test]
async fn an_advertisers_address_locks_after_failures_from_any_node_and_unknown_ones_alike() {
    let app = app_with(three_strikes).await;
    let other_node = node_beside(&app, three_strikes).await;
    let (_, me) = advertiser(&app).await;
    let email = me["email"].as_str().unwrap().to_owned();
    let nobody = super::advertisers::email();

    // Failures alternate between the nodes: the count is the deployment's, not a process's.
    for n in 0..3 {
        let node = if n % 2 == 0 { &app } else { &other_node };
        let known = refused(
            login(node, &email, "wrong password").await,
            401,
            "invalid_credentials",
        )
        .await;
        let unknown = refused(
            login(node, &nobody, "wrong password").await,
            401,
            "invalid_credentials",
        )
        .await;
        assert_eq!(known, unknown);
    }
    // Locked: even the right password waits, on every node, and an unknown address the same.
    let known = locked(login(&other_node, &email, PASSWORD).await, 60).await;
    let unknown = locked(login(&app, &nobody, PASSWORD).await, 60).await;
    assert_eq!(known, unknown);
    assert_eq!(lock_mails(&mails(&app, &email).await), 1);
    let mail = mails(&app, &email)
        .await
        .into_iter()
        .find(|m| m["subject"] == LOCK_SUBJECT)
        .unwrap();
    assert!(!mail["text"].as_str().unwrap().contains(PASSWORD), "{mail}");

    // After the wait one more failure locks again, twice as long; no second mail.
    app.advance(Duration::seconds(61));
    for who in [&email, &nobody] {
        wrong_passwords(&app, who, 1).await;
        locked(login(&app, who, PASSWORD).await, 120).await;
    }
    assert_eq!(lock_mails(&mails(&app, &email).await), 1);

    // After that wait the right password signs in and the count starts again.
    app.advance(Duration::seconds(121));
    data(login(&app, &email, PASSWORD).await).await;
    wrong_passwords(&app, &email, 2).await;
    data(login(&app, &email, PASSWORD).await).await;
}

#[actix_web::test]
async fn guesses_at_once_get_no_more_tries_than_guesses_in_turn() {
    let app = app_with(three_strikes).await;
    let (_, me) = advertiser(&app).await;
    let email = me["email"].as_str().unwrap().to_owned();
    // Each attempt takes its number before its password is hashed: of ten at once, three
    // are checked and the rest wait.
    let answers =
        futures_util::future::join_all((0..10).map(|_| login(&app, &email, "wrong password")))
            .await;
    let mut statuses: Vec<u16> = answers.iter().map(|r| r.status().as_u16()).collect();
    statuses.sort_unstable();
    assert_eq!(statuses, [401, 401, 401, 429, 429, 429, 429, 429, 429, 429]);
    locked(login(&app, &email, PASSWORD).await, 60).await;
    assert_eq!(lock_mails(&mails(&app, &email).await), 1);
}

#[actix_web::test]
async fn a_password_reset_lifts_an_advertisers_lock() {
    let app = app_with(three_strikes).await;
    let (_, me) = advertiser(&app).await;
    let email = me["email"].as_str().unwrap().to_owned();
    wrong_passwords(&app, &email, 3).await;
    locked(login(&app, &email, PASSWORD).await, 60).await;
    super::advertisers::forgot(&app, &email).await;
    // Mails so far: the verification link (1), the lock notice (2), the reset link (3).
    let token = nth_link(&app, &email, 3, "reset-password").await;
    let new_password = "another horse battery";
    data(
        post(
            &app,
            "/advertisers/reset-password",
            None,
            json!({"token": token, "password": new_password}),
        )
        .await,
    )
    .await;
    data(login(&app, &email, new_password).await).await;
}

/// The seeded administrator's address and password.
fn seed(app: &TestApp) -> (String, String) {
    let s = &app.settings.services.advertising.admin;
    (s.email.clone(), s.password.clone())
}

async fn admin_login_with(app: &TestApp, email: &str, password: &str, extra: Value) -> Response {
    let mut body = json!({"email": email, "password": password});
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    post(app, "/admin/auth/login", None, body).await
}

/// The code of `secret` (base32) at the app's time, `steps` steps on.
fn code(app: &TestApp, secret: &str, steps: i64) -> String {
    let raw = data_encoding::BASE32_NOPAD
        .decode(secret.as_bytes())
        .expect("a base32 secret");
    totp::code_at(&raw, totp::step_of(app.now().timestamp()) + steps)
}

/// A code that is not the one of `secret` now nor either side.
fn wrong_code(app: &TestApp, secret: &str) -> String {
    let near: Vec<String> = (-1..=1).map(|s| code(app, secret, s)).collect();
    (0..)
        .map(|n| format!("{n:06}"))
        .find(|c| !near.contains(c))
        .unwrap()
}

/// The body naming who enrols: an enrolment token, or nothing (the bearer token says).
fn enroller(enrolment: Option<&str>) -> Value {
    match enrolment {
        Some(t) => json!({"enrolmentToken": t}),
        None => json!({}),
    }
}

/// Starts enrolment with a bearer token or an enrolment token; answers the secret.
async fn enrol(app: &TestApp, bearer: Option<&str>, enrolment: Option<&str>) -> String {
    let res = post(app, "/admin/auth/totp/enrol", bearer, enroller(enrolment)).await;
    let e = data(res).await;
    let secret = e["secret"].as_str().unwrap().to_owned();
    assert_eq!(e["digits"], 6);
    assert_eq!(e["periodSecs"], 30);
    let uri = e["otpauthUri"].as_str().unwrap();
    assert!(uri.starts_with("otpauth://totp/"), "{uri}");
    assert!(uri.contains(&format!("secret={secret}")), "{uri}");
    secret
}

async fn confirm(
    app: &TestApp,
    bearer: Option<&str>,
    enrolment: Option<&str>,
    code: &str,
) -> Response {
    let mut body = enroller(enrolment);
    body["code"] = json!(code);
    post(app, "/admin/auth/totp/confirm", bearer, body).await
}

/// Enrols and confirms TOTP; answers the secret and the recovery codes.
async fn turn_on(
    app: &TestApp,
    bearer: Option<&str>,
    enrolment: Option<&str>,
) -> (String, Vec<String>) {
    let secret = enrol(app, bearer, enrolment).await;
    let c = data(confirm(app, bearer, enrolment, &code(app, &secret, 0)).await).await;
    assert_eq!(c["enabled"], true);
    let codes = c["recoveryCodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    (secret, codes)
}

#[actix_web::test]
async fn an_administrator_turns_totp_on_and_signs_in_with_each_code_once() {
    let app = app().await;
    // TOTP codes change every 30 s of the clock: frozen, a step never turns mid-test.
    app.clock.freeze();
    let (email, password) = seed(&app);
    let token = admin(&app).await;

    // A wrong code confirms nothing; the right one turns TOTP on.
    let first = enrol(&app, Some(&token), None).await;
    let res = confirm(&app, Some(&token), None, &wrong_code(&app, &first)).await;
    refused(res, 401, "invalid_totp_code").await;
    // Enrolling again before confirming replaces the secret.
    let (secret, codes) = turn_on(&app, Some(&token), None).await;
    assert_ne!(secret, first);
    assert_eq!(codes.len(), 10);
    let distinct: std::collections::HashSet<_> = codes.iter().collect();
    assert_eq!(distinct.len(), 10);
    // Never shown again, and not kept readable.
    let again = post(&app, "/admin/auth/totp/enrol", Some(&token), json!({})).await;
    refused(again, 409, "totp_already_enabled").await;
    let db = sea_orm::Database::connect(&app.settings.database.url)
        .await
        .unwrap();
    {
        use sea_orm::EntityTrait;
        use switchboard_entities::advertising::{admin_recovery_code, admin_totp};
        let rows = admin_totp::Entity::find().all(&db).await.unwrap();
        assert_eq!(rows.len(), 1);
        assert!(!rows[0].secret_sealed.contains(&secret));
        let hashes = admin_recovery_code::Entity::find().all(&db).await.unwrap();
        assert_eq!(hashes.len(), 10);
        for h in &hashes {
            assert!(codes
                .iter()
                .all(|c| !h.code_hash.contains(&c.replace('-', ""))));
        }
    }
    db.close().await.ok();

    // The password alone: no token.
    let res = admin_login(&app, &email, &password).await;
    let body = refused(res, 401, "totp_required").await;
    assert!(body.get("data").is_none(), "{body}");
    // The confirmation's code was used already.
    let same = json!({"totpCode": code(&app, &secret, 0)});
    let res = admin_login_with(&app, &email, &password, same).await;
    refused(res, 401, "invalid_totp_code").await;

    app.advance(Duration::seconds(30));
    let fresh = json!({"totpCode": code(&app, &secret, 0)});
    let d = data(admin_login_with(&app, &email, &password, fresh.clone()).await).await;
    let full = d["token"].as_str().unwrap().to_owned();
    data(get(&app, "/admin/system", Some(&full)).await).await;
    // Once only, even within its 30 seconds.
    let res = admin_login_with(&app, &email, &password, fresh.clone()).await;
    refused(res, 401, "invalid_totp_code").await;
    // A right code never makes up for a wrong password.
    app.advance(Duration::seconds(30));
    let next = json!({"totpCode": code(&app, &secret, 0)});
    let res = admin_login_with(&app, &email, "not the password", next).await;
    refused(res, 401, "invalid_credentials").await;

    // A recovery code instead, once, typed loosely.
    let typed = codes[0].to_uppercase().replace('-', " ");
    let recovery = json!({"recoveryCode": typed});
    data(admin_login_with(&app, &email, &password, recovery.clone()).await).await;
    let res = admin_login_with(&app, &email, &password, recovery).await;
    refused(res, 401, "invalid_totp_code").await;

    // Off with a current code; then the password alone signs in again.
    let res = post(
        &app,
        "/admin/auth/totp/disable",
        Some(&full),
        json!({"code": wrong_code(&app, &secret)}),
    )
    .await;
    refused(res, 401, "invalid_totp_code").await;
    let off = json!({"code": code(&app, &secret, 0)});
    let d = data(post(&app, "/admin/auth/totp/disable", Some(&full), off).await).await;
    assert_eq!(d["enabled"], false);
    data(admin_login(&app, &email, &password).await).await;
    let res = post(
        &app,
        "/admin/auth/totp/disable",
        Some(&full),
        json!({"code": "123456"}),
    )
    .await;
    refused(res, 409, "totp_not_enrolled").await;
}

#[actix_web::test]
async fn wrong_codes_and_passwords_lock_an_administrator_and_unknown_addresses_alike() {
    let app = app_with(three_strikes).await;
    // TOTP codes change every 30 s of the clock: frozen, a step never turns mid-test.
    app.clock.freeze();
    let (email, password) = seed(&app);
    let token = admin(&app).await;
    let (secret, _) = turn_on(&app, Some(&token), None).await;
    app.advance(Duration::seconds(30));
    let nobody = "nobody@example.com";

    // The right password with a missing or wrong code counts like a wrong password.
    refused(
        admin_login(&app, &email, &password).await,
        401,
        "totp_required",
    )
    .await;
    for _ in 0..2 {
        let bad = json!({"totpCode": wrong_code(&app, &secret)});
        let res = admin_login_with(&app, &email, &password, bad).await;
        refused(res, 401, "invalid_totp_code").await;
    }
    for _ in 0..3 {
        refused(
            admin_login(&app, nobody, &password).await,
            401,
            "invalid_credentials",
        )
        .await;
    }
    let good = json!({"totpCode": code(&app, &secret, 0)});
    let known = locked(
        admin_login_with(&app, &email, &password, good.clone()).await,
        60,
    )
    .await;
    let unknown = locked(
        admin_login_with(&app, nobody, &password, good.clone()).await,
        60,
    )
    .await;
    assert_eq!(known, unknown);
    assert_eq!(lock_mails(&mails(&app, &email).await), 1);

    // Wrong passwords of an administrator without TOTP answer like an unknown address's at
    // every step, the lock included.
    let staff_email = format!("ops-{}@example.com", uuid::Uuid::new_v4().simple());
    super::admin_accounts::create_admin(&app, &staff_email, "moderator", "long enough pass")
        .unwrap();
    let stranger = format!("ops-{}@example.com", uuid::Uuid::new_v4().simple());
    for _ in 0..3 {
        let k = refused(
            admin_login(&app, &staff_email, "wrong password").await,
            401,
            "invalid_credentials",
        )
        .await;
        let u = refused(
            admin_login(&app, &stranger, "wrong password").await,
            401,
            "invalid_credentials",
        )
        .await;
        assert_eq!(k, u);
    }
    let k = locked(
        admin_login(&app, &staff_email, "long enough pass").await,
        60,
    )
    .await;
    let u = locked(admin_login(&app, &stranger, "long enough pass").await, 60).await;
    assert_eq!(k, u);
    assert_eq!(lock_mails(&mails(&app, &staff_email).await), 1);

    // After the wait the right code signs in and the count starts again.
    app.advance(Duration::seconds(61));
    let good = json!({"totpCode": code(&app, &secret, 0)});
    data(admin_login_with(&app, &email, &password, good).await).await;
}

#[actix_web::test]
async fn when_totp_is_required_an_unenrolled_administrator_can_only_enrol() {
    let app = app_with(|s| s.services.advertising.require_admin_totp = true).await;
    // TOTP codes change every 30 s of the clock: frozen, a step never turns mid-test.
    app.clock.freeze();
    let (email, password) = seed(&app);
    let res = admin_login(&app, &email, &password).await;
    let body = refused(res, 403, "totp_enrolment_required").await;
    assert!(body.get("data").is_none(), "{body}");
    let enrolment = body["details"]["enrolmentToken"]
        .as_str()
        .unwrap()
        .to_owned();
    // It is no bearer token, and a forged one enrols nothing.
    refused(
        get(&app, "/admin/system", Some(&enrolment)).await,
        401,
        "unauthorized",
    )
    .await;
    let forged = json!({"enrolmentToken": format!("{}x", enrolment)});
    let res = post(&app, "/admin/auth/totp/enrol", None, forged).await;
    refused(res, 401, "unauthorized").await;
    refused(
        post(&app, "/admin/auth/totp/enrol", None, json!({})).await,
        401,
        "unauthorized",
    )
    .await;
    // A wrong password gets no enrolment token.
    let res = admin_login(&app, &email, "not the password").await;
    refused(res, 401, "invalid_credentials").await;

    let (secret, _) = turn_on(&app, None, Some(&enrolment)).await;
    refused(
        admin_login(&app, &email, &password).await,
        401,
        "totp_required",
    )
    .await;
    app.advance(Duration::seconds(30));
    let good = json!({"totpCode": code(&app, &secret, 0)});
    let d = data(admin_login_with(&app, &email, &password, good).await).await;
    let token = d["token"].as_str().unwrap().to_owned();
    data(get(&app, "/admin/system", Some(&token)).await).await;
    // Required: it stays on.
    let off = json!({"code": code(&app, &secret, 1)});
    let res = post(&app, "/admin/auth/totp/disable", Some(&token), off).await;
    refused(res, 403, "totp_mandatory").await;
    // The enrolment token expires.
    app.advance(Duration::seconds(601));
    let res = post(
        &app,
        "/admin/auth/totp/enrol",
        None,
        json!({"enrolmentToken": enrolment}),
    )
    .await;
    refused(res, 401, "unauthorized").await;
}

#[actix_web::test]
async fn sign_in_guard_operations_are_documented() {
    let app = app().await;
    let res = get(&app, "/api-docs/openapi.json", None).await;
    assert_eq!(res.status(), 200);
    let doc: Value = res.json().await.unwrap();
    for (path, id) in [
        ("/admin/auth/totp/enrol", "totp_enrol"),
        ("/admin/auth/totp/confirm", "totp_confirm"),
        ("/admin/auth/totp/disable", "totp_disable"),
        ("/admin/auth/login", "admin_login"),
        ("/advertisers/login", "login"),
    ] {
        let op = &doc["paths"][path]["post"];
        assert_eq!(op["operationId"], id, "{path}");
        let limited = op["responses"]["429"]["description"].to_string();
        assert!(limited.contains("account_locked"), "{path}: {limited}");
    }
    let login = doc["components"]["schemas"]["LoginRequest"]["properties"].clone();
    assert!(
        login.get("totpCode").is_some() && login.get("recoveryCode").is_some(),
        "{login}"
    );
    let unauthorized =
        doc["paths"]["/admin/auth/login"]["post"]["responses"]["401"]["description"].to_string();
    assert!(unauthorized.contains("totp_required"), "{unauthorized}");
    crate::helpers::assert_operations_and_links_consistent(&doc);
}
