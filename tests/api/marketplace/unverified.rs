//! Phone verification gates writes: an account whose phone is not verified signs in and
//! reads, and every write answers 403 `phone_not_verified` until it verifies.

use super::*;
use crate::helpers::phone;
use reqwest::Method;

/// Every write a signed-in customer can make, with a valid body.
fn writes(car: &str, comment: &str, dealer: &str, receiver: &str) -> Vec<(Method, String, Value)> {
    let tomorrow = (chrono::Utc::now() + chrono::Duration::days(2))
        .format("%Y-%m-%d")
        .to_string();
    vec![
        (Method::POST, "/cars".into(), car_body(json!({}))),
        (Method::PUT, format!("/cars/{car}"), json!({"price": 1})),
        (Method::DELETE, format!("/cars/{car}"), json!({})),
        (Method::POST, format!("/cars/{car}/like"), json!({})),
        (
            Method::POST,
            format!("/cars/{car}/comments"),
            json!({"text": "One star, avoid.", "rating": 1}),
        ),
        (
            Method::POST,
            format!("/cars/comments/{comment}/like"),
            json!({}),
        ),
        (
            Method::POST,
            format!("/cars/comments/{comment}/reply"),
            json!({"text": "Agreed."}),
        ),
        (
            Method::POST,
            format!("/cars/{car}/test-drive"),
            json!({"preferredDate": tomorrow, "preferredTime": "14:30"}),
        ),
        (
            Method::POST,
            format!("/customers/favorites/{car}"),
            json!({}),
        ),
        (
            Method::DELETE,
            format!("/customers/favorites/{car}"),
            json!({}),
        ),
        (
            Method::POST,
            "/customers/inquiries".into(),
            json!({"carId": car, "message": "Is it still available?"}),
        ),
        (
            Method::POST,
            format!("/dealers/{dealer}/reviews"),
            json!({"rating": 1, "comment": "Terrible"}),
        ),
        (
            Method::POST,
            "/messages/send".into(),
            json!({"receiverId": receiver, "message": "Hello"}),
        ),
        (
            Method::POST,
            "/auth/dealer-application".into(),
            dealers::application(),
        ),
    ]
}

#[actix_web::test]
async fn an_unverified_account_reads_and_signs_in_but_writes_nothing_until_it_verifies() {
    let app = app().await;
    let admin = admin_token(&app).await;
    let (dealer_token, dealer_id) = dealer(&app, &admin).await;
    let car = create_car(&app, &dealer_token, json!({})).await["_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (verified, _) = user(&app).await;
    let path = format!("/cars/{car}/comments");
    let body = json!({"text": "Drove it, lovely.", "rating": 5});
    let comment = assert_ok(
        send(&app, Method::POST, &path, &verified, Some(body)).await,
        201,
    )
    .await["_id"]
        .as_str()
        .unwrap()
        .to_owned();

    let p = phone();
    let auth = signup_unverified(&app, &p, "secret1").await;
    let token = auth["token"].as_str().unwrap().to_owned();
    // Reading and signing in work.
    let me = assert_ok(get(&app, "/auth/me", Some(&token)).await, 200).await;
    assert_eq!(me["isPhoneVerified"], false);
    assert_ok(get(&app, "/cars", Some(&token)).await, 200).await;
    assert_ok(get(&app, "/customers/favorites", Some(&token)).await, 200).await;
    let again = login(&app, &p).await;
    for (method, path, body) in writes(&car, &comment, &dealer_id, &dealer_id) {
        let res = send(&app, method.clone(), &path, &again, Some(body)).await;
        let v = assert_err(res, 403, "phone_not_verified").await;
        assert!(v["message"].as_str().unwrap().contains("verify"), "{v}");
    }
    // Nothing was written.
    let listed = json_body(get(&app, "/cars", None).await).await;
    assert_eq!(listed["pagination"]["totalItems"], 1, "{listed}");

    // The same token writes once the phone is verified.
    let otp = app.last_code(&p);
    let body = json!({"phone": p, "otp": otp});
    assert_ok(post(&app, "/auth/verify-signup", body).await, 200).await;
    create_car(&app, &token, json!({})).await;
    assert_ok(dealers::apply(&app, &token).await, 201).await;
}

#[actix_web::test]
async fn the_pending_list_shows_verification_and_an_unverified_applicant_is_not_approved() {
    let app = app().await;
    let admin = admin_token(&app).await;
    let p = phone();
    let auth = signup(&app, &p, "secret1").await;
    let (token, id) = (
        auth["token"].as_str().unwrap(),
        auth["user"]["_id"].as_str().unwrap(),
    );
    assert_ok(dealers::apply(&app, token).await, 201).await;
    let pending = json_body(get(&app, "/dealers/admin/pending", Some(&admin)).await).await;
    assert_eq!(pending["data"][0]["isPhoneVerified"], true, "{pending}");

    // An application from before verification gated writes, of a phone never verified.
    sql(
        &app,
        &format!("UPDATE marketplace_users SET is_phone_verified = false WHERE phone = '{p}'"),
    )
    .await;
    let pending = json_body(get(&app, "/dealers/admin/pending", Some(&admin)).await).await;
    assert_eq!(pending["data"][0]["isPhoneVerified"], false, "{pending}");
    let approve = format!("/dealers/{id}/approve");
    let res = send(&app, Method::PUT, &approve, &admin, None).await;
    assert_err(res, 409, "applicant_phone_not_verified").await;
    let pending = json_body(get(&app, "/dealers/admin/pending", Some(&admin)).await).await;
    assert_eq!(pending["pagination"]["totalItems"], 1, "still pending");
}
