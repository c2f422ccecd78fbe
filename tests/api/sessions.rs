//! Sessions end everywhere at once: every revocation path refuses the old access token on
//! the very next request (after the token was used, so an answer was cached) and closes the
//! session's sockets with a reason; a role granted is usable at once; limits count per
//! account; probes and API documents are never limited.

use crate::helpers::{assert_error, body, phone, spawn_app, TestApp};
use crate::marketplace::{
    admin_token, app_with, assert_ok, dealers, get, post, send, signup as mp_signup,
};
use crate::messaging::assert_err;
use crate::sio::Sio;
use reqwest::Method;
use serde_json::{json, Value};
use std::time::Duration;

fn s(v: &Value, k: &str) -> String {
    v[k].as_str()
        .unwrap_or_else(|| panic!("{k} in {v}"))
        .to_owned()
}

async fn marketplace() -> TestApp {
    app_with(|_| {}).await
}

/// The marketplace answers the token (so its session is cached) and accepts its socket.
async fn in_use(app: &TestApp, token: &str) -> Sio {
    assert_ok(get(app, "/auth/me", Some(token)).await, 200).await;
    Sio::open(&app.marketplace, json!({"token": token}))
        .await
        .expect("socket admitted")
}

async fn refused(app: &TestApp, token: &str) {
    assert_err(
        get(app, "/auth/me", Some(token)).await,
        401,
        "invalid_token",
    )
    .await;
    let apply = send(
        app,
        Method::POST,
        "/auth/dealer-application",
        token,
        Some(dealers::application()),
    )
    .await;
    assert_err(apply, 401, "invalid_token").await;
    let socket = Sio::open(&app.marketplace, json!({"token": token})).await;
    assert!(socket.is_err(), "a socket with an ended session is refused");
}

/// The socket is told why, then closed.
async fn ended(socket: &mut Sio, reason: &str) {
    let told = tokio::time::timeout(Duration::from_secs(5), socket.next("session_ended"))
        .await
        .expect("session_ended within 5 s");
    assert_eq!(told["reason"], reason);
    socket.closed_within(Duration::from_secs(5)).await;
}

/// Two logins of one account, each with a socket: the first's whole auth result.
struct Logins {
    first: Value,
    token: String,
    socket: Sio,
    other_login: String,
    other_socket: Sio,
}

impl Logins {
    /// Another login of the same account is another session: it goes on.
    async fn other_goes_on(&mut self, app: &TestApp) {
        assert_ok(get(app, "/auth/me", Some(&self.other_login)).await, 200).await;
        self.other_socket
            .silent_for(Duration::from_millis(300))
            .await;
    }
}

async fn two_logins(app: &TestApp) -> Logins {
    let p = phone();
    let first = mp_signup(app, &p, "secret1").await;
    let other_login = crate::marketplace::login(app, &p).await;
    let token = s(&first, "token");
    Logins {
        socket: in_use(app, &token).await,
        other_socket: in_use(app, &other_login).await,
        first,
        token,
        other_login,
    }
}

#[actix_web::test]
async fn refresh_token_reuse_ends_that_login_and_its_sockets_at_once() {
    let app = app_with(|s| s.services.marketplace.rotate_refresh_tokens = true).await;
    let mut l = two_logins(&app).await;

    let stolen = s(&l.first, "refreshToken");
    let rotated = assert_ok(
        post(&app, "/auth/refresh-token", json!({"refreshToken": stolen})).await,
        200,
    )
    .await;
    let fresh = s(&rotated, "accessToken");
    assert_ok(get(&app, "/auth/me", Some(&fresh)).await, 200).await;
    // The thief replays the rotated token: the whole login ends.
    assert_err(
        post(&app, "/auth/refresh-token", json!({"refreshToken": stolen})).await,
        401,
        "invalid_refresh_token",
    )
    .await;
    ended(&mut l.socket, "refresh_token_reused").await;
    refused(&app, &l.token).await;
    refused(&app, &fresh).await;
    l.other_goes_on(&app).await;
}

#[actix_web::test]
async fn a_marketplace_logout_ends_that_login_and_its_sockets_at_once() {
    let app = marketplace().await;
    let mut l = two_logins(&app).await;

    let out = send(&app, Method::POST, "/auth/logout", &l.token, None).await;
    assert_ok(out, 200).await;
    ended(&mut l.socket, "logged_out").await;
    refused(&app, &l.token).await;
    let refresh = json!({"refreshToken": s(&l.first, "refreshToken")});
    assert_err(
        post(&app, "/auth/refresh-token", refresh).await,
        401,
        "invalid_refresh_token",
    )
    .await;
    l.other_goes_on(&app).await;
}

#[actix_web::test]
async fn a_password_reset_ends_every_login_and_socket_of_the_account() {
    let app = marketplace().await;
    let p = phone();
    let token = s(&mp_signup(&app, &p, "secret1").await, "token");
    let second = crate::marketplace::login(&app, &p).await;
    let mut sockets = vec![in_use(&app, &token).await, in_use(&app, &second).await];
    let stranger = s(&mp_signup(&app, &phone(), "secret1").await, "token");
    let mut stranger_socket = in_use(&app, &stranger).await;

    assert_ok(
        post(&app, "/auth/forgot-password", json!({"phone": p})).await,
        200,
    )
    .await;
    let code = app.last_code(&p);
    let reset = assert_ok(
        post(
            &app,
            "/auth/verify-forgot-password",
            json!({"phone": p, "otp": code}),
        )
        .await,
        200,
    )
    .await;
    let body = json!({"token": s(&reset, "token"), "newPassword": "new-secret"});
    assert_ok(post(&app, "/auth/reset-password", body).await, 200).await;

    for socket in &mut sockets {
        ended(socket, "credentials_reset").await;
    }
    refused(&app, &token).await;
    refused(&app, &second).await;
    assert_ok(get(&app, "/auth/me", Some(&stranger)).await, 200).await;
    stranger_socket.silent_for(Duration::from_millis(300)).await;
}

#[actix_web::test]
async fn an_approved_dealer_acts_as_a_dealer_with_the_token_they_hold() {
    let app = marketplace().await;
    let admin = admin_token(&app).await;
    let (token, id) = crate::marketplace::user(&app).await;
    let apply = send(
        &app,
        Method::POST,
        "/auth/dealer-application",
        &token,
        Some(dealers::application()),
    )
    .await;
    assert_ok(apply, 201).await;
    // Before approval the role is refused (and that answer's session is cached).
    let res = get(&app, "/dealers/profile/me", Some(&token)).await;
    assert_eq!(res.status(), 403);
    let approve = send(
        &app,
        Method::PUT,
        &format!("/dealers/{id}/approve"),
        &admin,
        None,
    )
    .await;
    assert_ok(approve, 200).await;
    assert_ok(get(&app, "/dealers/profile/me", Some(&token)).await, 200).await;
    let me = assert_ok(get(&app, "/auth/me", Some(&token)).await, 200).await;
    assert_eq!(me["role"], "dealer", "{me}");
}

#[actix_web::test]
async fn limits_count_per_account_not_per_login() {
    let app = app_with(|s| s.services.marketplace.rate_limits.general.limit = 4).await;
    let p = phone();
    let first = s(&mp_signup(&app, &p, "secret1").await, "token");
    let second = crate::marketplace::login(&app, &p).await;
    let third = crate::marketplace::login(&app, &p).await;
    for token in [&first, &second, &third, &first] {
        assert_ok(get(&app, "/auth/me", Some(token)).await, 200).await;
    }
    // A fresh login brings no fresh budget.
    let res = get(&app, "/auth/me", Some(&third)).await;
    assert_eq!(res.status(), 429);
    assert_eq!(res.headers()["x-ratelimit-remaining"], "0");
    // Another account has its own.
    let other = s(&mp_signup(&app, &phone(), "secret1").await, "token");
    assert_ok(get(&app, "/auth/me", Some(&other)).await, 200).await;
}

#[actix_web::test]
async fn health_and_api_documents_are_never_limited() {
    let app = app_with(|s| {
        s.services.marketplace.rate_limits.general.limit = 2;
        s.services.identity.enabled = true;
        s.services.identity.rate_limits.default.limit = 2;
        s.services.interview.enabled = true;
        s.services.interview.rate_limits.default.limit = 2;
    })
    .await;
    for base in [&app.marketplace, &app.identity, &app.interview] {
        for path in ["/health", "/api-docs/openapi.json"] {
            for _ in 0..6 {
                let res = app
                    .client
                    .get(format!("{base}{path}"))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(res.status(), 200, "{base}{path}");
                assert!(res.headers().get("x-ratelimit-remaining").is_none());
            }
        }
    }
    // Everything else still counts.
    let anything = || app.client.get(format!("{}/cars", app.marketplace)).send();
    anything().await.unwrap();
    anything().await.unwrap();
    assert_eq!(anything().await.unwrap().status(), 429);
}

/// Identity: a fresh account and a second device's session, both in use.
async fn identity_account(app: &TestApp) -> (String, String, String) {
    let p = phone();
    let first = app.signup(&p, &crate::helpers::handle(), "1234").await;
    let second = body(
        app.post("/auth/signin", json!({"phone": p, "pin": "1234"}))
            .await,
    )
    .await["data"]
        .clone();
    let (a, b) = (s(&first, "access_token"), s(&second, "access_token"));
    for t in [&a, &b] {
        assert_eq!(app.get_auth("/users/me", t).await.status(), 200);
    }
    (p, a, b)
}

async fn identity_refused(app: &TestApp, token: &str) {
    assert_error(app.get_auth("/users/me", token).await, 401, "INVALID_TOKEN").await;
}

#[actix_web::test]
async fn identity_logout_and_session_revocation_end_the_token_on_the_next_request() {
    let app = spawn_app().await;
    let (p, a, b) = identity_account(&app).await;
    let signin = body(
        app.post("/auth/signin", json!({"phone": p, "pin": "1234"}))
            .await,
    )
    .await["data"]
        .clone();
    let c = s(&signin, "access_token");
    assert_eq!(app.get_auth("/users/me", &c).await.status(), 200);

    let res = app
        .post_auth(
            "/auth/logout",
            &c,
            json!({"refresh_token": s(&signin, "refresh_token")}),
        )
        .await;
    assert_eq!(res.status(), 200);
    identity_refused(&app, &c).await;

    // Revoking another device's session from this one.
    let listed = body(app.get_auth("/sessions", &a).await).await;
    let other = listed["data"]["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["current"] == false)
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let res = app
        .client
        .delete(app.url(&format!("/sessions/{other}")))
        .bearer_auth(&a)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    identity_refused(&app, &b).await;
    assert_eq!(app.get_auth("/users/me", &a).await.status(), 200);

    let res = app.post_auth("/auth/logout/all", &a, json!({})).await;
    assert_eq!(res.status(), 200);
    identity_refused(&app, &a).await;
}

#[actix_web::test]
async fn identity_pin_reset_and_deletion_end_every_session_at_once() {
    let app = spawn_app().await;
    let (p, a, b) = identity_account(&app).await;
    let temp = app.temp_token(&p, "pin_reset").await;
    let res = app
        .post(
            "/auth/pin/reset",
            json!({"temp_token": temp, "new_pin": "8642"}),
        )
        .await;
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
    identity_refused(&app, &a).await;
    identity_refused(&app, &b).await;

    let (_, c, d) = identity_account(&app).await;
    let res = app
        .client
        .delete(app.url("/users/me"))
        .bearer_auth(&c)
        .json(&json!({"pin": "1234", "confirmation": "DELETE MY ACCOUNT"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
    identity_refused(&app, &c).await;
    identity_refused(&app, &d).await;
}

#[actix_web::test]
async fn identity_reads_its_own_changes_through_the_cached_session() {
    let app = spawn_app().await;
    let (_, a, b) = identity_account(&app).await;
    let res = app
        .client
        .patch(app.url("/users/me"))
        .bearer_auth(&a)
        .json(&json!({"bio": "changed on one device"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let me = body(app.get_auth("/users/me", &b).await).await;
    assert_eq!(me["data"]["bio"], "changed on one device", "{me}");

    // Wrong PINs through another device count toward the lockout the next check reads.
    let delete = |pin: &'static str| {
        app.client
            .delete(app.url("/users/me"))
            .bearer_auth(&b)
            .json(&json!({"pin": pin, "confirmation": "DELETE MY ACCOUNT"}))
            .send()
    };
    let mut locked = false;
    for _ in 0..10 {
        let v = body(delete("9999").await.unwrap()).await;
        if v["error"]["code"] == "ACCOUNT_LOCKED" {
            locked = true;
            break;
        }
        assert_eq!(v["error"]["code"], "INVALID_CREDENTIALS", "{v}");
    }
    assert!(locked, "wrong PINs lock the account");
    assert_error(delete("1234").await.unwrap(), 403, "ACCOUNT_LOCKED").await;
    assert_eq!(app.get_auth("/users/me", &a).await.status(), 200);
}
