//! Advertisers' accounts: sign-up, the address verified by a mailed link, sign-in (wrong
//! email and wrong password alike), logout, password resets, the profile and the balance.

use super::*;
use crate::helpers::TestApp;
use chrono::Duration;
use serde_json::json;

pub const PASSWORD: &str = "correct horse battery";

/// A fresh address.
pub fn email() -> String {
    format!("ads-{}@example.com", uuid::Uuid::new_v4().simple())
}

/// The mails to `to` so far (running due jobs first), oldest first.
pub async fn mails(app: &TestApp, to: &str) -> Vec<Value> {
    let _ = app.jobs.run_due().await;
    app.outbox_for(to)
        .into_iter()
        .filter(|m| m["channel"] == "email")
        .collect()
}

/// Waits for the `n`-th mail to `to`; answers the token of its link to `page`.
pub async fn nth_link(app: &TestApp, to: &str, n: usize, page: &str) -> String {
    for _ in 0..200 {
        let all = mails(app, to).await;
        if let Some(m) = all.get(n - 1) {
            let text = m["text"].as_str().unwrap();
            let at = text
                .find(&format!("/{page}?token="))
                .unwrap_or_else(|| panic!("no {page} link in {text}"));
            let rest = &text[at + page.len() + 8..];
            return rest
                .split(|c: char| c.is_whitespace())
                .next()
                .unwrap()
                .to_owned();
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("no mail #{n} to {to}: {:?}", mails(app, to).await);
}

pub async fn signup(app: &TestApp, email: &str) -> Value {
    data(
        post(
            app,
            "/advertisers/signup",
            None,
            json!({"email": email, "password": PASSWORD, "companyName": "Acme Ltd", "countryCode": "GB"}),
        )
        .await,
    )
    .await
}

pub async fn login(app: &TestApp, email: &str, password: &str) -> Response {
    post(
        app,
        "/advertisers/login",
        None,
        json!({"email": email, "password": password}),
    )
    .await
}

/// A verified, signed-in advertiser: (token, advertiser).
pub async fn advertiser(app: &TestApp) -> (String, Value) {
    let email = email();
    signup(app, &email).await;
    let token = nth_link(app, &email, 1, "verify-email").await;
    data(
        post(
            app,
            "/advertisers/verify-email",
            None,
            json!({"token": token}),
        )
        .await,
    )
    .await;
    let d = data(login(app, &email, PASSWORD).await).await;
    (
        d["token"].as_str().unwrap().to_owned(),
        d["advertiser"].clone(),
    )
}

#[actix_web::test]
async fn an_advertiser_signs_up_verifies_the_address_signs_in_and_out() {
    let app = app().await;
    let email = email();
    let d = signup(&app, &email.to_uppercase()).await;
    assert!(d.get("token").is_none(), "{d}");
    let a = &d["advertiser"];
    assert_eq!(a["email"], email, "addresses are kept lowercased");
    assert_eq!(a["emailVerified"], false);
    assert_eq!(a["companyName"], "Acme Ltd");
    assert_eq!(a["countryCode"], "GB");

    // Unverified: the right password is refused until the link is followed.
    refused(
        login(&app, &email, PASSWORD).await,
        403,
        "email_not_verified",
    )
    .await;
    let token = nth_link(&app, &email, 1, "verify-email").await;
    let mail = &mails(&app, &email).await[0];
    assert_eq!(mail["subject"], "Verify your email address");
    assert_eq!(mail["service"], "advertising");
    // Only the token's hash is kept.
    let db = sea_orm::Database::connect(&app.settings.database.url)
        .await
        .unwrap();
    let stored: Vec<String> = {
        use sea_orm::EntityTrait;
        switchboard_entities::advertising::advertiser_token::Entity::find()
            .all(&db)
            .await
            .unwrap()
            .into_iter()
            .map(|t| t.token_hash)
            .collect()
    };
    assert!(!stored.is_empty() && !stored.contains(&token), "{stored:?}");

    let v = data(
        post(
            &app,
            "/advertisers/verify-email",
            None,
            json!({"token": token}),
        )
        .await,
    )
    .await;
    assert_eq!(v["advertiser"]["emailVerified"], true);
    // Single use.
    refused(
        post(
            &app,
            "/advertisers/verify-email",
            None,
            json!({"token": token}),
        )
        .await,
        400,
        "invalid_token",
    )
    .await;

    let d = data(login(&app, &email.to_uppercase(), PASSWORD).await).await;
    let bearer = d["token"].as_str().unwrap().to_owned();
    assert_eq!(d["advertiser"]["email"], email);
    assert_eq!(d["advertiser"]["emailVerified"], true);

    // A poster's token is not an advertiser's, and an advertiser's is not a poster's.
    let poster = poster(&app).await;
    refused(
        post(&app, "/advertisers/logout", Some(&poster), json!({})).await,
        403,
        "forbidden",
    )
    .await;
    refused(
        get(&app, "/users/profile", Some(&bearer)).await,
        403,
        "forbidden",
    )
    .await;

    data(post(&app, "/advertisers/logout", Some(&bearer), json!({})).await).await;
    refused(
        post(&app, "/advertisers/logout", Some(&bearer), json!({})).await,
        401,
        "unauthorized",
    )
    .await;
    refused(
        post(&app, "/advertisers/logout", None, json!({})).await,
        401,
        "unauthorized",
    )
    .await;
}

#[actix_web::test]
async fn signup_refuses_bad_input_naming_the_field_and_a_taken_address() {
    let app = app().await;
    let good =
        json!({"email": email(), "password": PASSWORD, "companyName": "Acme", "countryCode": "gb"});
    let with = |key: &str, value: Value| {
        let mut b = good.clone();
        b[key] = value;
        b
    };
    for (body, field) in [
        (with("email", json!("not-an-address")), "email"),
        (with("email", Value::Null), "email"),
        (with("password", json!("123456789")), "password"),
        (with("password", Value::Null), "password"),
        (with("companyName", json!("  ")), "companyName"),
        (with("countryCode", json!("XX")), "countryCode"),
        (with("countryCode", json!("GBR")), "countryCode"),
        (with("countryCode", json!(44)), "countryCode"),
        (with("role", json!("admin")), "role"),
    ] {
        let res = post(&app, "/advertisers/signup", None, body.clone()).await;
        let b = refused(res, 400, "validation_error").await;
        assert!(b.to_string().contains(field), "{field}: {b}");
    }
    let d = data(post(&app, "/advertisers/signup", None, good.clone()).await).await;
    assert_eq!(d["advertiser"]["countryCode"], "GB");
    // The same address, however it is typed, is taken.
    let again = with(
        "email",
        json!(good["email"].as_str().unwrap().to_uppercase()),
    );
    refused(
        post(&app, "/advertisers/signup", None, again).await,
        409,
        "email_taken",
    )
    .await;
    // Only the first sign-up was mailed.
    let to = good["email"].as_str().unwrap();
    nth_link(&app, to, 1, "verify-email").await;
    assert_eq!(mails(&app, to).await.len(), 1);
}

#[actix_web::test]
async fn a_wrong_email_and_a_wrong_password_answer_alike() {
    let app = app().await;
    let (_, a) = advertiser(&app).await;
    let known = a["email"].as_str().unwrap();
    let wrong_password = refused(
        login(&app, known, "not the password").await,
        401,
        "invalid_credentials",
    )
    .await;
    let unknown = refused(
        login(&app, &email(), PASSWORD).await,
        401,
        "invalid_credentials",
    )
    .await;
    assert_eq!(wrong_password, unknown);
    // Missing fields are the caller's mistake, not a guess.
    refused(
        post(&app, "/advertisers/login", None, json!({"email": known})).await,
        400,
        "validation_error",
    )
    .await;
    // An unverified address with a wrong password learns nothing either.
    let fresh = email();
    signup(&app, &fresh).await;
    refused(
        login(&app, &fresh, "not the password").await,
        401,
        "invalid_credentials",
    )
    .await;
}

#[actix_web::test]
async fn an_unverified_sign_in_mails_the_link_again_at_most_once_a_minute() {
    let app = app().await;
    let email = email();
    signup(&app, &email).await;
    let first = nth_link(&app, &email, 1, "verify-email").await;
    // The sign-up's mail went moments ago: none more yet.
    refused(
        login(&app, &email, PASSWORD).await,
        403,
        "email_not_verified",
    )
    .await;
    assert_eq!(mails(&app, &email).await.len(), 1);
    app.advance(Duration::seconds(61));
    refused(
        login(&app, &email, PASSWORD).await,
        403,
        "email_not_verified",
    )
    .await;
    refused(
        login(&app, &email, PASSWORD).await,
        403,
        "email_not_verified",
    )
    .await;
    let second = nth_link(&app, &email, 2, "verify-email").await;
    assert_ne!(first, second);
    assert_eq!(mails(&app, &email).await.len(), 2);
    // Either link verifies; using one ends the other.
    data(
        post(
            &app,
            "/advertisers/verify-email",
            None,
            json!({"token": second}),
        )
        .await,
    )
    .await;
    refused(
        post(
            &app,
            "/advertisers/verify-email",
            None,
            json!({"token": first}),
        )
        .await,
        400,
        "invalid_token",
    )
    .await;
    data(login(&app, &email, PASSWORD).await).await;
}

#[actix_web::test]
async fn a_verification_link_expires_after_a_day() {
    let app = app().await;
    let email = email();
    signup(&app, &email).await;
    let token = nth_link(&app, &email, 1, "verify-email").await;
    app.advance(Duration::seconds(24 * 3600 + 1));
    refused(
        post(
            &app,
            "/advertisers/verify-email",
            None,
            json!({"token": token}),
        )
        .await,
        400,
        "invalid_token",
    )
    .await;
    for body in [json!({}), json!({"token": ""}), json!({"token": 5})] {
        refused(
            post(&app, "/advertisers/verify-email", None, body).await,
            400,
            "validation_error",
        )
        .await;
    }
    refused(
        post(
            &app,
            "/advertisers/verify-email",
            None,
            json!({"token": "made-up"}),
        )
        .await,
        400,
        "invalid_token",
    )
    .await;
}

#[actix_web::test]
async fn advertiser_sign_in_requests_are_rate_limited_per_address() {
    let app = app_with(|s| s.services.advertising.rate_limits.auth.limit = 3).await;
    for _ in 0..3 {
        refused(
            login(&app, &email(), PASSWORD).await,
            401,
            "invalid_credentials",
        )
        .await;
    }
    refused(
        login(&app, &email(), PASSWORD).await,
        429,
        "rate_limit_exceeded",
    )
    .await;
}

async fn put(app: &TestApp, path: &str, token: Option<&str>, body: Value) -> Response {
    call(app, Method::PUT, path, token, Some(body)).await
}

#[actix_web::test]
async fn the_profile_changes_field_by_field_and_names_bad_fields() {
    let app = app().await;
    let (token, a) = advertiser(&app).await;
    let p = data(get(&app, "/advertisers/profile", Some(&token)).await).await;
    assert_eq!(p, a);
    assert_eq!(p["contactName"], Value::Null);

    let changed = data(
        put(
            &app,
            "/advertisers/profile",
            Some(&token),
            json!({"companyName": " Acme Films ", "countryCode": "de", "contactName": "Ada",
                   "phone": "+447700900123", "website": "https://acme.example.com"}),
        )
        .await,
    )
    .await;
    assert_eq!(changed["companyName"], "Acme Films");
    assert_eq!(changed["countryCode"], "DE");
    assert_eq!(changed["contactName"], "Ada");
    assert_eq!(changed["phone"], "+447700900123");
    assert_eq!(changed["website"], "https://acme.example.com");
    assert_eq!(changed["email"], a["email"]);
    // Absent keys stay; null clears an optional one.
    let cleared = data(
        put(
            &app,
            "/advertisers/profile",
            Some(&token),
            json!({"website": null}),
        )
        .await,
    )
    .await;
    assert_eq!(cleared["website"], Value::Null);
    assert_eq!(cleared["contactName"], "Ada");
    assert_eq!(
        data(get(&app, "/advertisers/profile", Some(&token)).await).await,
        cleared
    );

    for (body, field) in [
        (json!({"email": "new@example.com"}), "email"),
        (json!({"nickname": "x"}), "nickname"),
        (json!({"companyName": 5}), "companyName"),
        (json!({"companyName": ""}), "companyName"),
        (json!({"countryCode": "ZZ"}), "countryCode"),
        (json!({"phone": "0770"}), "phone"),
        (json!({"website": "http://acme.example.com"}), "website"),
        (json!({"contactName": "x".repeat(81)}), "contactName"),
    ] {
        let b = refused(
            put(&app, "/advertisers/profile", Some(&token), body).await,
            400,
            "validation_error",
        )
        .await;
        assert!(b.to_string().contains(field), "{field}: {b}");
    }
    refused(
        get(&app, "/advertisers/profile", None).await,
        401,
        "unauthorized",
    )
    .await;
    let poster = poster(&app).await;
    refused(
        get(&app, "/advertisers/profile", Some(&poster)).await,
        403,
        "forbidden",
    )
    .await;
}

/// Asks for a password-reset mail for `email`.
pub async fn forgot(app: &TestApp, email: &str) {
    data(
        post(
            app,
            "/advertisers/forgot-password",
            None,
            json!({"email": email}),
        )
        .await,
    )
    .await;
}

async fn reset(app: &TestApp, token: &str, password: &str) -> Response {
    post(
        app,
        "/advertisers/reset-password",
        None,
        json!({"token": token, "password": password}),
    )
    .await
}

#[actix_web::test]
async fn a_password_reset_ends_live_tokens_and_every_other_link() {
    let app = app().await;
    let (live, a) = advertiser(&app).await;
    let email = a["email"].as_str().unwrap().to_owned();
    let verify_mails = mails(&app, &email).await.len();
    forgot(&app, &email).await;
    forgot(&app, &email).await;
    let first = nth_link(&app, &email, verify_mails + 1, "reset-password").await;
    // One reset mail a minute per account, however often it is asked for.
    assert_eq!(mails(&app, &email).await.len(), verify_mails + 1);
    app.advance(Duration::seconds(60));
    forgot(&app, &email).await;
    let second = nth_link(&app, &email, verify_mails + 2, "reset-password").await;
    assert_eq!(
        mails(&app, &email).await[verify_mails]["subject"],
        "Reset your password"
    );
    // An unknown address answers the same and is mailed nothing.
    let nobody = self::email();
    forgot(&app, &nobody).await;
    assert!(mails(&app, &nobody).await.is_empty());

    refused(reset(&app, &second, "short").await, 400, "validation_error").await;
    data(reset(&app, &second, "a brand new password").await).await;
    // The live token stopped working at once, and the other link with it.
    refused(
        get(&app, "/advertisers/profile", Some(&live)).await,
        401,
        "unauthorized",
    )
    .await;
    refused(
        reset(&app, &first, "another new password").await,
        400,
        "invalid_token",
    )
    .await;
    refused(
        reset(&app, &second, "another new password").await,
        400,
        "invalid_token",
    )
    .await;
    refused(
        login(&app, &email, PASSWORD).await,
        401,
        "invalid_credentials",
    )
    .await;
    let d = data(login(&app, &email, "a brand new password").await).await;
    data(
        get(
            &app,
            "/advertisers/profile",
            Some(d["token"].as_str().unwrap()),
        )
        .await,
    )
    .await;

    // A link works for an hour.
    app.advance(Duration::seconds(60));
    forgot(&app, &email).await;
    let late = nth_link(&app, &email, verify_mails + 3, "reset-password").await;
    app.advance(Duration::seconds(3601));
    refused(
        reset(&app, &late, "yet another password").await,
        400,
        "invalid_token",
    )
    .await;
    // A verification link is no reset link.
    refused(
        post(&app, "/advertisers/forgot-password", None, json!({})).await,
        400,
        "validation_error",
    )
    .await;
}

#[actix_web::test]
async fn a_reset_link_also_verifies_the_address() {
    let app = app().await;
    let email = email();
    signup(&app, &email).await;
    let verify = nth_link(&app, &email, 1, "verify-email").await;
    refused(
        reset(&app, &verify, "a brand new password").await,
        400,
        "invalid_token",
    )
    .await;
    forgot(&app, &email).await;
    let link = nth_link(&app, &email, 2, "reset-password").await;
    data(reset(&app, &link, "a brand new password").await).await;
    let d = data(login(&app, &email, "a brand new password").await).await;
    assert_eq!(d["advertiser"]["emailVerified"], true);
}

/// The schema a documented operation answers (200, inside `{data}`) or takes (JSON body),
/// with `$ref`s followed.
fn schema_of<'a>(doc: &'a Value, path: &str, method: &str, request: bool) -> &'a Value {
    let op = &doc["paths"][path][method];
    let media = if request {
        &op["requestBody"]["content"]["application/json"]["schema"]
    } else {
        &op["responses"]["200"]["content"]["application/json"]["schema"]
    };
    let resolve = |s: &'a Value| match s["$ref"].as_str() {
        Some(r) => &doc["components"]["schemas"][r.rsplit('/').next().unwrap()],
        None => s,
    };
    let outer = resolve(media);
    if request {
        outer
    } else {
        resolve(&outer["properties"]["data"])
    }
}

#[actix_web::test]
async fn posters_and_advertisers_shapes_are_documented_apart() {
    // Two wire types of one name would be one schema in the document, and one of the two
    // operations would be documented with the other's shape.
    let app = app().await;
    let doc = data_of_doc(&app).await;
    for (path, method, request, field) in [
        ("/users/balance", "get", false, "availableCents"),
        ("/advertisers/balance", "get", false, "depositsCents"),
        ("/users/profile", "put", true, "avatarUrl"),
        ("/advertisers/profile", "put", true, "companyName"),
        ("/auth/verify-otp", "post", false, "user"),
        ("/advertisers/login", "post", false, "advertiser"),
        ("/admin/auth/login", "post", false, "admin"),
    ] {
        let schema = schema_of(&doc, path, method, request);
        assert!(
            schema["properties"].get(field).is_some(),
            "{method} {path} is documented with {field}: {schema}"
        );
    }
}

async fn data_of_doc(app: &TestApp) -> Value {
    let res = get(app, "/api-docs/openapi.json", None).await;
    assert_eq!(res.status(), 200);
    res.json().await.unwrap()
}
