//! /admin/users: moderators find, read, change, ban and unban posters.

use super::admin_accounts::{admin, only_for, staff};
use super::*;
use serde_json::json;

async fn put(app: &TestApp, path: &str, token: &str, body: Value) -> Response {
    call(app, Method::PUT, path, Some(token), Some(body)).await
}

#[actix_web::test]
async fn moderators_find_read_and_change_posters() {
    let app = app().await;
    let moderator = staff(&app, "moderator").await;
    let number = phone();
    let (ada, user) = sign_in(&app, &number).await;
    let id = user["id"].as_str().unwrap().to_owned();
    data(
        put(
            &app,
            "/users/profile",
            &ada,
            json!({"name": "Ada 50%_off", "email": "ada@example.com"}),
        )
        .await,
    )
    .await;
    poster(&app).await;

    let all = data(get(&app, "/admin/users", Some(&moderator)).await).await;
    assert_eq!(all["total"], 2, "{all}");
    for search in ["ADA", "50%_", "example.COM", &number[4..]] {
        let found = data(
            get(
                &app,
                &format!("/admin/users?search={}", urlencoding(search)),
                Some(&moderator),
            )
            .await,
        )
        .await;
        assert_eq!(found["total"], 1, "{search}: {found}");
        assert_eq!(found["items"][0]["id"], id.as_str());
    }
    let none = data(get(&app, "/admin/users?search=%25zz", Some(&moderator)).await).await;
    assert_eq!(none["total"], 0);
    let gb = data(
        get(
            &app,
            "/admin/users?countryId=gb&status=active&kycStatus=none&limit=1",
            Some(&moderator),
        )
        .await,
    )
    .await;
    assert_eq!(
        (gb["total"].as_u64(), gb["items"].as_array().unwrap().len()),
        (Some(2), 1)
    );
    let fr = data(get(&app, "/admin/users?countryId=FR", Some(&moderator)).await).await;
    assert_eq!(fr["total"], 0);
    refused(
        get(&app, "/admin/users?status=gone", Some(&moderator)).await,
        400,
        "validation_error",
    )
    .await;
    refused(
        get(&app, "/admin/users?kycStatus=maybe", Some(&moderator)).await,
        400,
        "validation_error",
    )
    .await;
    refused(
        get(&app, "/admin/users?limit=101", Some(&moderator)).await,
        400,
        "validation_error",
    )
    .await;

    let one = data(get(&app, &format!("/admin/users/{id}"), Some(&moderator)).await).await;
    assert_eq!(one["name"], "Ada 50%_off");
    let unknown = uuid::Uuid::new_v4();
    refused(
        get(&app, &format!("/admin/users/{unknown}"), Some(&moderator)).await,
        404,
        "user_not_found",
    )
    .await;
    refused(
        get(&app, "/admin/users/not-an-id", Some(&moderator)).await,
        404,
        "user_not_found",
    )
    .await;

    let changed = data(
        put(
            &app,
            &format!("/admin/users/{id}"),
            &moderator,
            json!({"name": "Ada L", "email": "Ada.L@Example.com", "kycStatus": "verified"}),
        )
        .await,
    )
    .await;
    assert_eq!(
        (
            changed["name"].as_str(),
            changed["email"].as_str(),
            changed["kycStatus"].as_str()
        ),
        (Some("Ada L"), Some("ada.l@example.com"), Some("verified"))
    );
    // The poster sees the change on their next request.
    let mine = data(get(&app, "/users/profile", Some(&ada)).await).await;
    assert_eq!(mine["kycStatus"], "verified");
    let before = data(get(&app, &format!("/admin/users/{id}"), Some(&moderator)).await).await;
    for bad in [
        json!({"kycStatus": "maybe"}),
        json!({"status": "gone"}),
        json!({"email": "nope"}),
        json!({"name": ""}),
        json!({"role": "admin"}),
        // A good field beside a bad one changes nothing either.
        json!({"name": "Half Done", "email": "nope"}),
    ] {
        let res = put(&app, &format!("/admin/users/{id}"), &moderator, bad.clone()).await;
        assert_eq!(res.status(), 400, "{bad}");
        let now = data(get(&app, &format!("/admin/users/{id}"), Some(&moderator)).await).await;
        assert_eq!(now, before, "a refused {bad} changed the user");
    }
    refused(
        put(
            &app,
            &format!("/admin/users/{unknown}"),
            &moderator,
            json!({"name": "X"}),
        )
        .await,
        404,
        "user_not_found",
    )
    .await;

    let txs = data(
        get(
            &app,
            &format!("/admin/users/{id}/transactions?type=earning"),
            Some(&moderator),
        )
        .await,
    )
    .await;
    assert_eq!(txs["total"], 0);
    refused(
        get(
            &app,
            &format!("/admin/users/{id}/transactions?type=gift"),
            Some(&moderator),
        )
        .await,
        400,
        "validation_error",
    )
    .await;
    refused(
        get(
            &app,
            &format!("/admin/users/{unknown}/transactions"),
            Some(&moderator),
        )
        .await,
        404,
        "user_not_found",
    )
    .await;

    // Finance staff, posters and callers without a token are refused.
    let finance = staff(&app, "finance").await;
    for (method, path, body) in [
        (Method::GET, "/admin/users".to_owned(), None),
        (Method::GET, format!("/admin/users/{id}"), None),
        (
            Method::PUT,
            format!("/admin/users/{id}"),
            Some(json!({"name": "X"})),
        ),
        (
            Method::POST,
            format!("/admin/users/{id}/ban"),
            Some(json!({})),
        ),
        (
            Method::POST,
            format!("/admin/users/{id}/unban"),
            Some(json!({})),
        ),
        (Method::GET, format!("/admin/users/{id}/transactions"), None),
    ] {
        only_for(&app, method, &path, body, &[&finance, &ada]).await;
    }
}

fn urlencoding(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'.' | b'-' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[actix_web::test]
async fn a_ban_ends_a_live_poster_token_at_once_and_for_good() {
    let app = app().await;
    let boss = admin(&app).await;
    let number = phone();
    let (token, user) = sign_in(&app, &number).await;
    let id = user["id"].as_str().unwrap().to_owned();
    data(get(&app, "/users/profile", Some(&token)).await).await;

    let banned = data(
        post(
            &app,
            &format!("/admin/users/{id}/ban"),
            Some(&boss),
            json!({}),
        )
        .await,
    )
    .await;
    assert_eq!(banned["status"], "banned");
    refused(
        get(&app, "/users/profile", Some(&token)).await,
        401,
        "unauthorized",
    )
    .await;
    refused(
        post(
            &app,
            &format!("/admin/users/{id}/ban"),
            Some(&boss),
            json!({}),
        )
        .await,
        409,
        "invalid_transition",
    )
    .await;
    // Signing in again is refused while banned.
    app.advance(chrono::Duration::seconds(61));
    let code = send_code(&app, &number).await;
    let again = post(
        &app,
        "/auth/verify-otp",
        None,
        json!({"phoneNumber": number, "code": code}),
    )
    .await;
    refused(again, 403, "account_banned").await;

    data(
        post(
            &app,
            &format!("/admin/users/{id}/unban"),
            Some(&boss),
            json!({}),
        )
        .await,
    )
    .await;
    refused(
        post(
            &app,
            &format!("/admin/users/{id}/unban"),
            Some(&boss),
            json!({}),
        )
        .await,
        409,
        "invalid_transition",
    )
    .await;
    // The old token stays ended; a new sign-in works.
    refused(
        get(&app, "/users/profile", Some(&token)).await,
        401,
        "unauthorized",
    )
    .await;
    app.advance(chrono::Duration::seconds(61));
    let (fresh, _) = sign_in(&app, &number).await;
    data(get(&app, "/users/profile", Some(&fresh)).await).await;

    // A ban through an update ends the token too.
    let changed = call(
        &app,
        Method::PUT,
        &format!("/admin/users/{id}"),
        Some(&boss),
        Some(json!({"status": "banned"})),
    )
    .await;
    assert_eq!(data(changed).await["status"], "banned");
    refused(
        get(&app, "/users/profile", Some(&fresh)).await,
        401,
        "unauthorized",
    )
    .await;
    let unknown = uuid::Uuid::new_v4();
    refused(
        post(
            &app,
            &format!("/admin/users/{unknown}/ban"),
            Some(&boss),
            json!({}),
        )
        .await,
        404,
        "user_not_found",
    )
    .await;
}
