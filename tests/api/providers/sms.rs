use crate::helpers::*;
use serde_json::json;
use wiremock::matchers::{basic_auth, body_string_contains, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

#[actix_web::test]
async fn otp_goes_through_the_twilio_adapter_when_configured() {
    let twilio = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/2010-04-01/Accounts/AC123/Messages.json"))
        .and(basic_auth("AC123", "secret-token"))
        .and(body_string_contains("To=%2B49176"))
        .and(body_string_contains("From=%2B15005550006"))
        .respond_with(
            ResponseTemplate::new(201).set_body_json(json!({"sid": "SM0001", "status": "queued"})),
        )
        .expect(1)
        .mount(&twilio)
        .await;
    let app = spawn_app_with(|s| {
        s.providers.sms.provider = "twilio".into();
        s.providers.sms.base_url = twilio.uri();
        s.providers.sms.account_sid = "AC123".into();
        s.providers.sms.auth_token = "secret-token".into();
    })
    .await;
    let res = app
        .post(
            "/auth/otp/send",
            json!({"phone": phone(), "purpose": "signup"}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let requests = twilio.received_requests().await.unwrap();
    let sent = String::from_utf8_lossy(&requests[0].body).to_string();
    assert!(sent.contains("Body=Your+Switchboard+code+is+"), "{sent}");
    assert!(app.outbox_for("any").is_empty());
}

#[actix_web::test]
async fn twilio_failure_is_an_internal_error_not_a_crash() {
    let twilio = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(400)
                .set_body_json(json!({"code": 21211, "message": "Invalid 'To'"})),
        )
        .mount(&twilio)
        .await;
    let app = spawn_app_with(|s| {
        s.providers.sms.provider = "twilio".into();
        s.providers.sms.base_url = twilio.uri();
        s.providers.sms.account_sid = "AC123".into();
    })
    .await;
    let res = app
        .post(
            "/auth/otp/send",
            json!({"phone": phone(), "purpose": "signup"}),
        )
        .await;
    assert_error(res, 500, "INTERNAL_ERROR").await;
}
