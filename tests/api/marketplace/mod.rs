//! Car marketplace: envelope, versioning, accounts, limits.

mod accounts;
mod admin_cli;
mod ai;
mod cars;
mod catalogue;
mod codes;
mod corrections;
mod customers;
mod dealer_profiles;
pub mod dealers;
mod export;
mod interactions;
mod messages;
mod reviews;
mod sandbox;
mod search;
mod service;
mod trending;
mod unverified;
mod vin;
mod vin_online;

use crate::helpers::{spawn_app_with, TestApp};
/// The marketplace's error body is messaging's plus optional details and retryAfter.
pub use crate::messaging::{assert_err, json_body};
use reqwest::{RequestBuilder, Response};
use serde_json::{json, Value};
use switchboard::settings::Settings;

/// Only the marketplace runs; its authentication limit is out of the way unless a test
/// sets it (the limit tests do).
pub async fn app_with(tweak: impl FnOnce(&mut Settings)) -> TestApp {
    spawn_app_with(|s| {
        s.services.identity.enabled = false;
        s.services.interview.enabled = false;
        s.services.messaging.enabled = false;
        s.services.marketplace.rate_limits.auth.limit = 10_000;
        s.services.marketplace.rate_limits.general.limit = 10_000;
        tweak(s);
    })
    .await
}

pub async fn app() -> TestApp {
    app_with(|_| {}).await
}

pub fn req(app: &TestApp, method: reqwest::Method, path: &str) -> RequestBuilder {
    app.client
        .request(method, format!("{}{}", app.marketplace, path))
}

pub async fn post(app: &TestApp, path: &str, body: Value) -> Response {
    req(app, reqwest::Method::POST, path)
        .json(&body)
        .send()
        .await
        .expect("request")
}

pub async fn get(app: &TestApp, path: &str, token: Option<&str>) -> Response {
    let mut r = req(app, reqwest::Method::GET, path);
    if let Some(t) = token {
        r = r.bearer_auth(t);
    }
    r.send().await.expect("request")
}

/// Asserts a success envelope with `status`; answers `data`.
pub async fn assert_ok(res: Response, status: u16) -> Value {
    let got = res.status().as_u16();
    let v = json_body(res).await;
    // The body says why (an error code, a server fault) when the status is not the one expected.
    assert_eq!(got, status, "{v}");
    assert_eq!(v["success"], true, "{v}");
    v["data"].clone()
}

/// Signs up `phone` with `password` and verifies the phone with the code it was texted (every
/// write needs a verified phone); answers verify-signup's authentication result.
pub async fn signup(app: &TestApp, phone: &str, password: &str) -> Value {
    signup_unverified(app, phone, password).await;
    let otp = app.last_code(phone);
    let res = post(
        app,
        "/auth/verify-signup",
        json!({"phone": phone, "otp": otp}),
    )
    .await;
    assert_ok(res, 200).await
}

/// Signs up `phone` with `password` without verifying it (may read and sign in, nothing
/// more); answers the authentication result.
pub async fn signup_unverified(app: &TestApp, phone: &str, password: &str) -> Value {
    let res = post(
        app,
        "/auth/signup",
        json!({"phone": phone, "password": password, "name": "Ada Buyer"}),
    )
    .await;
    assert_ok(res, 201).await
}

/// Signs in as a fresh administrator made the way the CLI makes one.
pub async fn admin_token(app: &TestApp) -> String {
    let db = sea_orm::Database::connect(&app.settings.database.url)
        .await
        .unwrap();
    let p = crate::helpers::phone();
    switchboard::services::marketplace::create_admin(&db, app.now(), &p, "admin-secret", None)
        .await
        .unwrap();
    db.close().await.ok();
    let res = post(
        app,
        "/auth/login",
        json!({"phone": p, "password": "admin-secret"}),
    )
    .await;
    assert_ok(res, 200).await["token"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A request with a bearer token and an optional JSON body.
pub async fn send(
    app: &TestApp,
    method: reqwest::Method,
    path: &str,
    token: &str,
    body: Option<Value>,
) -> Response {
    let mut r = req(app, method, path).bearer_auth(token);
    if let Some(b) = body {
        r = r.json(&b);
    }
    r.send().await.unwrap()
}

/// A fresh user: `(token, id)`.
pub async fn user(app: &TestApp) -> (String, String) {
    let auth = signup(app, &crate::helpers::phone(), "secret1").await;
    (
        auth["token"].as_str().unwrap().to_owned(),
        auth["user"]["_id"].as_str().unwrap().to_owned(),
    )
}

/// A fresh approved dealer signed in again (so the token carries the dealer role):
/// `(token, id)`.
pub async fn dealer(app: &TestApp, admin: &str) -> (String, String) {
    dealer_of(app, admin, &crate::helpers::phone()).await
}

/// [`dealer`] with the phone `p` (password `secret1`), to sign in again with [`login`].
pub async fn dealer_of(app: &TestApp, admin: &str, p: &str) -> (String, String) {
    let auth = signup(app, p, "secret1").await;
    let token = auth["token"].as_str().unwrap();
    let id = auth["user"]["_id"].as_str().unwrap().to_owned();
    let res = send(
        app,
        reqwest::Method::POST,
        "/auth/dealer-application",
        token,
        Some(dealers::application()),
    )
    .await;
    assert_ok(res, 201).await;
    let res = send(
        app,
        reqwest::Method::PUT,
        &format!("/dealers/{id}/approve"),
        admin,
        None,
    )
    .await;
    assert_ok(res, 200).await;
    (login(app, p).await, id)
}

/// A fresh access token of the account of phone `p` (password `secret1`).
pub async fn login(app: &TestApp, p: &str) -> String {
    let res = post(
        app,
        "/auth/login",
        json!({"phone": p, "password": "secret1"}),
    )
    .await;
    assert_ok(res, 200).await["token"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A complete listing body; `over` replaces or adds fields.
pub fn car_body(over: Value) -> Value {
    let mut body = json!({
        "make": "Toyota", "model": "Corolla", "year": 2019, "mileage": 42000,
        "fuelType": "Petrol", "transmission": "Automatic", "bodyType": "Sedan",
        "color": "Silver", "description": "One owner, full service history.",
        "condition": "Used", "price": 15500,
        "features": ["Bluetooth", "Backup Camera"]
    });
    if let (Some(b), Some(o)) = (body.as_object_mut(), over.as_object()) {
        for (k, v) in o {
            b.insert(k.clone(), v.clone());
        }
    }
    body
}

/// Lists a car for `token`; answers the created Car.
pub async fn create_car(app: &TestApp, token: &str, over: Value) -> Value {
    let res = send(
        app,
        reqwest::Method::POST,
        "/cars",
        token,
        Some(car_body(over)),
    )
    .await;
    assert_ok(res, 201).await
}

/// The `_id` of a record in an answer.
pub fn id_of(v: &Value) -> String {
    v["_id"].as_str().unwrap().to_owned()
}

/// Runs `statement` on the app's database (to set what no endpoint sets yet).
pub async fn sql(app: &TestApp, statement: &str) {
    use sea_orm::ConnectionTrait;
    let db = sea_orm::Database::connect(&app.settings.database.url)
        .await
        .unwrap();
    db.execute_unprepared(statement).await.unwrap();
    db.close().await.ok();
}

/// Moves the test clock to just after the next UTC midnight (less than a day, so tokens
/// issued before stay valid).
pub fn next_utc_day(app: &TestApp) {
    let now = app.now();
    let midnight = (now.date_naive() + chrono::Duration::days(1))
        .and_hms_opt(0, 0, 1)
        .unwrap()
        .and_utc();
    app.advance(midnight - now);
}

/// Each body POSTed to `path` is refused with `validation_error` naming its field.
pub async fn assert_fields_refused(
    app: &TestApp,
    path: &str,
    token: &str,
    cases: Vec<(Value, &str)>,
) {
    for (body, field) in cases {
        let res = send(app, reqwest::Method::POST, path, token, Some(body)).await;
        let v = assert_err(res, 400, "validation_error").await;
        assert_eq!(v["details"]["field"], field, "{v}");
    }
}
