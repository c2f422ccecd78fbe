//! The push port as startup builds it (`Providers::build`), against a fake FCM and token
//! endpoint. No endpoint sends pushes yet (the advertising service's jobs will).

use chrono::Duration;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use rsa::pkcs1::EncodeRsaPublicKey;
use rsa::pkcs8::DecodePrivateKey;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;
use switchboard::core::clock::{Clock, ManualClock};
use switchboard::providers::push::{Platform, PushError, PushMessage};
use switchboard::providers::settings::{AiSettings, OutboxSettings, ProvidersSettings};
use switchboard::providers::Providers;
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// A throwaway RSA key made for these tests (never a real account's).
const TEST_KEY: &str = include_str!("../../fixtures/push_test_key.pem");
const CLIENT_EMAIL: &str = "push-test@demo-project.iam.gserviceaccount.com";
pub const SEND_PATH: &str = "/v1/projects/demo-project/messages:send";

struct Fixture {
    fake: MockServer,
    clock: Arc<ManualClock>,
    providers: Providers,
    _dir: tempfile::TempDir,
}

/// Points `channels` at FCM on `fake`, through a service-account key file written in `dir`
/// whose `token_uri` is the fake's.
pub fn use_fake_fcm(channels: &mut ProvidersSettings, fake: &MockServer, dir: &std::path::Path) {
    let key_file = dir.join("service-account.json");
    std::fs::write(
        &key_file,
        json!({
            "type": "service_account",
            "project_id": "demo-project",
            "private_key_id": "key-1",
            "private_key": TEST_KEY,
            "client_email": CLIENT_EMAIL,
            "token_uri": format!("{}/token", fake.uri()),
        })
        .to_string(),
    )
    .unwrap();
    channels.push.provider = "fcm".into();
    channels.push.base_url = fake.uri();
    channels.push.service_account_file = key_file.display().to_string();
}

/// FCM configured through a key file (`use_fake_fcm`).
async fn fcm() -> Fixture {
    let fake = MockServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut channels = ProvidersSettings::default();
    use_fake_fcm(&mut channels, &fake, dir.path());
    let outbox = OutboxSettings {
        path: dir.path().join("outbox.jsonl").display().to_string(),
    };
    let clock = ManualClock::new();
    clock.freeze();
    let providers = Providers::build(
        &outbox,
        &channels,
        &AiSettings::default(),
        clock.clone(),
        &Default::default(),
    )
    .unwrap();
    Fixture {
        fake,
        clock,
        providers,
        _dir: dir,
    }
}

pub async fn grant_tokens(fake: &MockServer, token: &str, exchanges: impl Into<wiremock::Times>) {
    Mock::given(method("POST"))
        .and(path("/token"))
        .respond_with(ResponseTemplate::new(200).set_body_json(
            json!({"access_token": token, "expires_in": 3600, "token_type": "Bearer"}),
        ))
        .expect(exchanges)
        .mount(fake)
        .await;
}

/// FCM accepting exactly `sends` messages that carry this access token.
async fn accept_sends(fake: &MockServer, token: &str, sends: u64) {
    Mock::given(method("POST"))
        .and(path(SEND_PATH))
        .and(header("authorization", format!("Bearer {token}")))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"name": "projects/demo-project/messages/0:1"})),
        )
        .expect(sends)
        .mount(fake)
        .await;
}

fn data() -> BTreeMap<String, String> {
    BTreeMap::from([
        ("kind".to_owned(), "video_ready".to_owned()),
        ("subscriptionId".to_owned(), "42".to_owned()),
    ])
}

fn message<'a>(data: &'a BTreeMap<String, String>, platform: Platform) -> PushMessage<'a> {
    PushMessage {
        device_token: "device-token-1",
        platform,
        title: "Your video is ready",
        body: "Post it and earn $1.50",
        data,
        service: "advertising",
    }
}

/// The form fields of a token request.
fn form(body: &[u8]) -> BTreeMap<String, String> {
    url::form_urlencoded::parse(body).into_owned().collect()
}

#[actix_web::test]
async fn fcm_trades_a_signed_jwt_for_a_token_it_keeps_until_expiry() {
    let f = fcm().await;
    grant_tokens(&f.fake, "ya29.first", 2).await;
    accept_sends(&f.fake, "ya29.first", 3).await;
    let data = data();
    let push = &f.providers.push;
    assert!(!push.is_sandbox());

    let receipt = push.send(&message(&data, Platform::Android)).await.unwrap();
    assert_eq!(
        receipt.provider_message_id,
        "projects/demo-project/messages/0:1"
    );
    push.send(&message(&data, Platform::Ios)).await.unwrap();
    // Past the token's hour (less the minute's margin): a new exchange.
    f.clock.advance(Duration::seconds(3600 - 59));
    push.send(&message(&data, Platform::Android)).await.unwrap();

    let requests = f.fake.received_requests().await.unwrap();
    let paths: Vec<&str> = requests.iter().map(|r| r.url.path()).collect();
    assert_eq!(paths, ["/token", SEND_PATH, SEND_PATH, "/token", SEND_PATH]);

    // The token request: the JWT bearer grant, signed with the service account's key.
    let grant = form(&requests[0].body);
    assert_eq!(
        grant["grant_type"],
        "urn:ietf:params:oauth:grant-type:jwt-bearer"
    );
    let public = rsa::RsaPrivateKey::from_pkcs8_pem(TEST_KEY)
        .unwrap()
        .to_public_key()
        .to_pkcs1_der()
        .unwrap();
    let token_uri = format!("{}/token", f.fake.uri());
    let mut validation = Validation::new(Algorithm::RS256);
    validation.set_audience(&[&token_uri]);
    validation.set_issuer(&[CLIENT_EMAIL]);
    // The clock is the test's, not the library's.
    validation.validate_exp = false;
    let decoding = DecodingKey::from_rsa_der(public.as_bytes());
    let jwt = jsonwebtoken::decode::<Value>(&grant["assertion"], &decoding, &validation).unwrap();
    assert_eq!(jwt.header.kid.as_deref(), Some("key-1"));
    let claims = jwt.claims;
    assert_eq!(
        claims["scope"],
        "https://www.googleapis.com/auth/firebase.messaging"
    );
    let started = f.clock.now().timestamp() - (3600 - 59);
    assert_eq!(claims["iat"], started);
    assert_eq!(claims["exp"], started + 3600);
    // The second exchange signs at the clock's new time.
    let again = form(&requests[3].body);
    let later = jsonwebtoken::decode::<Value>(&again["assertion"], &decoding, &validation)
        .unwrap()
        .claims;
    assert_eq!(later["iat"], f.clock.now().timestamp());

    // The messages: token, notification and data, and the platform's block.
    let sent: Value = serde_json::from_slice(&requests[1].body).unwrap();
    assert_eq!(
        sent,
        json!({"message": {
            "token": "device-token-1",
            "notification": {"title": "Your video is ready", "body": "Post it and earn $1.50"},
            "data": {"kind": "video_ready", "subscriptionId": "42"},
            "android": {"priority": "HIGH"},
        }})
    );
    let ios: Value = serde_json::from_slice(&requests[2].body).unwrap();
    assert_eq!(ios["message"]["apns"]["payload"]["aps"]["sound"], "default");
    assert!(ios["message"].get("android").is_none());
    for r in &requests[1..3] {
        assert_eq!(r.headers["authorization"], "Bearer ya29.first");
    }
}

#[actix_web::test]
async fn fcm_answers_are_classified_for_the_caller() {
    let f = fcm().await;
    let unregistered = json!({"error": {
        "code": 404,
        "message": "Requested entity was not found.",
        "status": "NOT_FOUND",
        "details": [{
            "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
            "errorCode": "UNREGISTERED",
        }],
    }});
    let cases = [
        (
            ResponseTemplate::new(404).set_body_json(&unregistered),
            "gone",
        ),
        // The error code alone names a gone token, whatever the status.
        (
            ResponseTemplate::new(400).set_body_json(&unregistered),
            "gone",
        ),
        (ResponseTemplate::new(404), "gone"),
        (
            ResponseTemplate::new(429).insert_header("retry-after", "30"),
            "retry",
        ),
        (ResponseTemplate::new(503), "retry"),
        (
            ResponseTemplate::new(400).set_body_json(
                json!({"error": {"code": 400, "status": "INVALID_ARGUMENT", "message": "bad"}}),
            ),
            "permanent",
        ),
    ];
    let data = data();
    for (answer, expected) in cases {
        f.fake.reset().await;
        // The first case trades for the token the others reuse.
        grant_tokens(&f.fake, "ya29.t", 0..=1).await;
        Mock::given(method("POST"))
            .and(path(SEND_PATH))
            .respond_with(answer)
            .mount(&f.fake)
            .await;
        let err = f
            .providers
            .push
            .send(&message(&data, Platform::Android))
            .await
            .unwrap_err();
        match (expected, &err) {
            ("gone", PushError::TokenGone) | ("permanent", PushError::Permanent(_)) => {}
            ("retry", PushError::Retryable { retry_after, .. }) => {
                assert!(err.is_retryable());
                if let Some(after) = retry_after {
                    assert_eq!(after.as_secs(), 30);
                }
            }
            _ => panic!("expected {expected}, got {err:?}"),
        }
    }
}

#[actix_web::test]
async fn a_refused_token_exchange_is_permanent_and_an_outage_retryable() {
    let f = fcm().await;
    Mock::given(method("POST"))
        .and(path("/token"))
        .respond_with(ResponseTemplate::new(400).set_body_json(json!({"error": "invalid_grant"})))
        .up_to_n_times(1)
        .mount(&f.fake)
        .await;
    Mock::given(method("POST"))
        .and(path("/token"))
        .respond_with(ResponseTemplate::new(503))
        .mount(&f.fake)
        .await;
    let data = data();
    let push = &f.providers.push;
    let first = push.send(&message(&data, Platform::Ios)).await.unwrap_err();
    assert!(
        matches!(&first, PushError::Permanent(m) if m.contains("invalid_grant")),
        "{first:?}"
    );
    let second = push.send(&message(&data, Platform::Ios)).await.unwrap_err();
    assert!(second.is_retryable(), "{second:?}");
    // Nothing reached the send endpoint without a token.
    let requests = f.fake.received_requests().await.unwrap();
    assert!(requests.iter().all(|r| r.url.path() == "/token"));
}

#[actix_web::test]
async fn pushes_land_in_the_outbox_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let outbox = OutboxSettings {
        path: dir.path().join("outbox.jsonl").display().to_string(),
    };
    let clock = ManualClock::new();
    let providers = Providers::build(
        &outbox,
        &ProvidersSettings::default(),
        &AiSettings::default(),
        clock,
        &Default::default(),
    )
    .unwrap();
    assert!(providers.push.is_sandbox());
    let data = data();
    let receipt = providers
        .push
        .send(&message(&data, Platform::Ios))
        .await
        .unwrap();
    let line: Value = serde_json::from_str(
        std::fs::read_to_string(&outbox.path)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(line["channel"], "push");
    assert_eq!(line["to"], "device-token-1");
    assert_eq!(line["subject"], "Your video is ready");
    assert_eq!(line["text"], "Post it and earn $1.50");
    assert_eq!(line["service"], "advertising");
    assert_eq!(line["provider_message_id"], receipt.provider_message_id);
    assert_eq!(
        line["details"],
        json!({"platform": "ios", "data": {"kind": "video_ready", "subscriptionId": "42"}})
    );
}

#[actix_web::test]
async fn the_server_refuses_to_start_with_fcm_but_no_credentials() {
    let mut settings = switchboard::settings::Settings::default();
    settings.providers.push.provider = "fcm".into();
    let err = switchboard::Application::build(settings)
        .await
        .err()
        .expect("startup refused")
        .to_string();
    assert!(err.contains("[providers.push]"), "{err}");
    assert!(err.contains("project_id"), "{err}");
}

#[actix_web::test]
async fn concurrent_sends_share_one_token_exchange() {
    let f = fcm().await;
    grant_tokens(&f.fake, "ya29.shared", 1).await;
    accept_sends(&f.fake, "ya29.shared", 5).await;
    let data = data();
    let messages: Vec<_> = (0..5).map(|_| message(&data, Platform::Android)).collect();
    let sends = messages.iter().map(|m| f.providers.push.send(m));
    for result in futures_util::future::join_all(sends).await {
        result.unwrap();
    }
}
