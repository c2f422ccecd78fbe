//! Posters: sign-in by code with its cooldown and lockout on the injected clock, logout,
//! profile, referral code and device token.

use super::*;
use chrono::Duration;
use reqwest::Method;
use serde_json::json;

const ALPHABET: &str = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

#[actix_web::test]
async fn a_code_by_sms_signs_a_poster_in_and_makes_them_once() {
    let app = app().await;
    let phone = phone();
    let sent = data(
        post(
            &app,
            "/auth/request-otp",
            None,
            json!({"phoneNumber": phone, "countryId": "gb"}),
        )
        .await,
    )
    .await;
    assert_eq!(sent["expiresIn"], 600);
    let code = app.last_code(&phone);
    let d = data(
        post(
            &app,
            "/auth/verify-otp",
            None,
            json!({"phoneNumber": phone, "code": code}),
        )
        .await,
    )
    .await;
    let user = &d["user"];
    assert_eq!(user["phoneNumber"], phone.as_str());
    assert_eq!(user["countryCode"], "GB");
    assert_eq!(user["status"], "active");
    assert_eq!(user["kycStatus"], "none");
    let referral = user["referralCode"].as_str().unwrap().to_owned();
    assert_eq!(referral.len(), 8);
    assert!(referral.chars().all(|c| ALPHABET.contains(c)), "{referral}");
    let token = d["token"].as_str().unwrap();

    let me = data(get(&app, "/users/profile", Some(token)).await).await;
    assert_eq!(me["id"], user["id"]);
    let code_view = data(get(&app, "/users/referral-code", Some(token)).await).await;
    assert_eq!(code_view["referralCode"], referral.as_str());

    // A second sign-in (a minute later) is the same poster with the same code.
    app.advance(Duration::seconds(61));
    let (_, again) = sign_in(&app, &phone).await;
    assert_eq!(again["id"], user["id"]);
    assert_eq!(again["referralCode"], referral.as_str());
}

#[actix_web::test]
async fn one_code_a_minute_per_phone() {
    let app = app().await;
    let phone = phone();
    let body = json!({"phoneNumber": phone, "countryId": "GB"});
    data(post(&app, "/auth/request-otp", None, body.clone()).await).await;
    app.advance(Duration::seconds(20));
    let err = refused(
        post(&app, "/auth/request-otp", None, body.clone()).await,
        429,
        "otp_cooldown",
    )
    .await;
    assert_eq!(err["retryAfter"], 40, "{err}");
    assert_eq!(app.outbox_for(&phone).len(), 1);
    app.advance(Duration::seconds(40));
    data(post(&app, "/auth/request-otp", None, body).await).await;
    assert_eq!(app.outbox_for(&phone).len(), 2);
}

#[actix_web::test]
async fn five_wrong_codes_lock_the_phone_for_fifteen_minutes() {
    let app = app().await;
    let phone = phone();
    let ask = json!({"phoneNumber": phone, "countryId": "GB"});
    data(post(&app, "/auth/request-otp", None, ask.clone()).await).await;
    let code = app.last_code(&phone);
    let wrong = if code == "000000" { "111111" } else { "000000" };
    let guess = json!({"phoneNumber": phone, "code": wrong});
    for left in [4, 3, 2, 1] {
        let err = refused(
            post(&app, "/auth/verify-otp", None, guess.clone()).await,
            400,
            "invalid_otp",
        )
        .await;
        assert_eq!(err["details"]["attemptsRemaining"], left, "{err}");
    }
    let err = refused(
        post(&app, "/auth/verify-otp", None, guess.clone()).await,
        429,
        "otp_locked",
    )
    .await;
    assert_eq!(err["retryAfter"], 900);
    // Locked: even the right code, and asking for a new one, wait.
    let right = json!({"phoneNumber": phone, "code": code});
    refused(
        post(&app, "/auth/verify-otp", None, right).await,
        429,
        "otp_locked",
    )
    .await;
    app.advance(Duration::seconds(300));
    let err = refused(
        post(&app, "/auth/request-otp", None, ask.clone()).await,
        429,
        "otp_locked",
    )
    .await;
    assert_eq!(err["retryAfter"], 600);
    app.advance(Duration::seconds(601));
    data(post(&app, "/auth/request-otp", None, ask).await).await;
    let fresh = app.last_code(&phone);
    data(
        post(
            &app,
            "/auth/verify-otp",
            None,
            json!({"phoneNumber": phone, "code": fresh}),
        )
        .await,
    )
    .await;
}

#[actix_web::test]
async fn sign_in_refuses_bad_input_clearly() {
    let app = app().await;
    let phone = phone();
    for (body, field) in [
        (json!({"countryId": "GB"}), "phoneNumber"),
        (
            json!({"phoneNumber": "07700900123", "countryId": "GB"}),
            "phoneNumber",
        ),
        (json!({"phoneNumber": phone}), "countryId"),
    ] {
        let err = refused(
            post(&app, "/auth/request-otp", None, body).await,
            400,
            "validation_error",
        )
        .await;
        assert_eq!(err["details"]["field"], field, "{err}");
    }
    refused(
        post(
            &app,
            "/auth/request-otp",
            None,
            json!({"phoneNumber": phone, "countryId": "XX"}),
        )
        .await,
        404,
        "country_not_found",
    )
    .await;
    refused(
        post(
            &app,
            "/auth/request-otp",
            None,
            json!({"phoneNumber": phone, "countryId": 5}),
        )
        .await,
        400,
        "validation_error",
    )
    .await;
    // No code was asked for this phone.
    refused(
        post(
            &app,
            "/auth/verify-otp",
            None,
            json!({"phoneNumber": phone, "code": "123456"}),
        )
        .await,
        400,
        "otp_expired",
    )
    .await;
    let err = refused(
        post(
            &app,
            "/auth/verify-otp",
            None,
            json!({"phoneNumber": phone}),
        )
        .await,
        400,
        "validation_error",
    )
    .await;
    assert_eq!(err["details"]["field"], "code");
    // A code lives ten minutes.
    data(
        post(
            &app,
            "/auth/request-otp",
            None,
            json!({"phoneNumber": phone, "countryId": "GB"}),
        )
        .await,
    )
    .await;
    let code = app.last_code(&phone);
    app.advance(Duration::seconds(601));
    refused(
        post(
            &app,
            "/auth/verify-otp",
            None,
            json!({"phoneNumber": phone, "code": code}),
        )
        .await,
        400,
        "otp_expired",
    )
    .await;
}

#[actix_web::test]
async fn logout_ends_the_token_at_once_and_forgets_the_device() {
    let app = app().await;
    let phone = phone();
    let (token, _) = sign_in(&app, &phone).await;
    data(
        post(
            &app,
            "/device-token",
            Some(&token),
            json!({"token": "fcm-abc", "platform": "android"}),
        )
        .await,
    )
    .await;
    data(post(&app, "/auth/logout", Some(&token), json!({})).await).await;
    refused(
        get(&app, "/users/profile", Some(&token)).await,
        401,
        "unauthorized",
    )
    .await;
    refused(
        post(&app, "/auth/logout", Some(&token), json!({})).await,
        401,
        "unauthorized",
    )
    .await;
    app.advance(Duration::seconds(61));
    let (again, _) = sign_in(&app, &phone).await;
    refused(
        call(&app, Method::DELETE, "/device-token", Some(&again), None).await,
        404,
        "device_token_not_found",
    )
    .await;
    refused(get(&app, "/users/profile", None).await, 401, "unauthorized").await;
    refused(
        get(&app, "/users/profile", Some("not-a-token")).await,
        401,
        "unauthorized",
    )
    .await;
}

#[actix_web::test]
async fn a_token_of_another_kind_is_not_a_posters() {
    let app = app().await;
    let (_, user) = sign_in(&app, &phone()).await;
    let keys = switchboard::core::jwt::JwtKeys::new(&app.settings.auth.jwt_secret);
    let id = user["id"].as_str().unwrap();
    let forged = keys
        .issue(
            "advertiser",
            id,
            Some(&uuid::Uuid::new_v4().to_string()),
            app.now(),
            3600,
        )
        .unwrap();
    refused(
        get(&app, "/users/profile", Some(&forged)).await,
        401,
        "unauthorized",
    )
    .await;
}

#[actix_web::test]
async fn the_profile_changes_field_by_field_and_names_bad_fields() {
    let app = app().await;
    let token = poster(&app).await;
    let put = |body: Value| {
        let app = &app;
        let token = token.clone();
        async move { call(app, Method::PUT, "/users/profile", Some(&token), Some(body)).await }
    };
    let d = data(put(json!({"name": " Ada Obi ", "email": "Ada@Example.com", "avatarUrl": "https://cdn.example.com/a.png", "countryId": "DE"})).await).await;
    assert_eq!(d["name"], "Ada Obi");
    assert_eq!(d["email"], "ada@example.com");
    assert_eq!(d["countryCode"], "DE");
    let d = data(put(json!({"email": null})).await).await;
    assert_eq!(d["email"], Value::Null);
    assert_eq!(d["name"], "Ada Obi");
    assert_eq!(
        data(get(&app, "/users/profile", Some(&token)).await).await["name"],
        "Ada Obi"
    );
    for (body, field) in [
        (json!({"name": ""}), "name"),
        (json!({"name": "x".repeat(81)}), "name"),
        (json!({"email": "nope"}), "email"),
        (
            json!({"avatarUrl": "http://cdn.example.com/a.png"}),
            "avatarUrl",
        ),
    ] {
        let err = refused(put(body).await, 400, "validation_error").await;
        assert_eq!(err["details"]["field"], field, "{err}");
    }
    let err = refused(put(json!({"nickname": "a"})).await, 400, "validation_error").await;
    assert!(err["error"].as_str().unwrap().contains("nickname"), "{err}");
    let err = refused(put(json!({"name": 5})).await, 400, "validation_error").await;
    assert!(err["error"].as_str().unwrap().contains("name"), "{err}");
    refused(
        put(json!({"countryId": "ZZ"})).await,
        404,
        "country_not_found",
    )
    .await;
    refused(
        put(json!({"phoneNumber": "+447700900000"})).await,
        400,
        "validation_error",
    )
    .await;
}

#[actix_web::test]
async fn one_device_token_per_poster() {
    let app = app().await;
    let token = poster(&app).await;
    let d = data(
        post(
            &app,
            "/device-token",
            Some(&token),
            json!({"token": "t-1", "platform": "android"}),
        )
        .await,
    )
    .await;
    assert_eq!(d["platform"], "android");
    let d = data(
        post(
            &app,
            "/device-token",
            Some(&token),
            json!({"token": "t-2", "platform": "ios"}),
        )
        .await,
    )
    .await;
    assert_eq!(d["token"], "t-2");
    // The second device replaced the first: no push goes to "t-1" any more.
    {
        use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
        use switchboard_entities::advertising::device_token;
        let db = sea_orm::Database::connect(&app.settings.database.url)
            .await
            .unwrap();
        let old = device_token::Entity::find()
            .filter(device_token::Column::Token.eq("t-1"))
            .all(&db)
            .await
            .unwrap();
        assert!(old.is_empty(), "the first token is still kept: {old:?}");
        let kept: Vec<(String, String)> = device_token::Entity::find()
            .all(&db)
            .await
            .unwrap()
            .into_iter()
            .map(|t| (t.token, t.platform))
            .collect();
        assert_eq!(kept, [("t-2".to_owned(), "ios".to_owned())]);
    }
    for (body, field) in [
        (json!({"token": "t", "platform": "windows"}), "platform"),
        (json!({"platform": "ios"}), "token"),
        (json!({"token": "a b", "platform": "ios"}), "token"),
    ] {
        let err = refused(
            post(&app, "/device-token", Some(&token), body).await,
            400,
            "validation_error",
        )
        .await;
        assert_eq!(err["details"]["field"], field, "{err}");
    }
    data(call(&app, Method::DELETE, "/device-token", Some(&token), None).await).await;
    refused(
        call(&app, Method::DELETE, "/device-token", Some(&token), None).await,
        404,
        "device_token_not_found",
    )
    .await;
    refused(
        post(
            &app,
            "/device-token",
            None,
            json!({"token": "t", "platform": "ios"}),
        )
        .await,
        401,
        "unauthorized",
    )
    .await;
}
