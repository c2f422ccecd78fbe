//! Messaging service: sends, bulk, credits, webhooks, carrier callbacks, providers.

mod account;
mod bulk;
mod carrier;
mod consent;
mod dispatch;
mod providers;
mod retake;
mod send;
mod webhooks;

use crate::helpers::{spawn_app_with, TestApp};
use reqwest::Response;
use serde_json::{json, Value};
use std::future::Future;
use std::time::Duration;
use switchboard::services::messaging::{create_workspace, NewWorkspace};
use switchboard::settings::Settings;
use uuid::Uuid;

/// Settings every messaging test wants: receivers on loopback allowed.
pub fn test_settings(s: &mut Settings) {
    s.services.messaging.webhooks.allow_private_urls = true;
    s.services.messaging.public_url = "https://sb.example.com".into();
    s.providers.sms.auth_token = "carrier-token".into();
}

pub async fn app() -> TestApp {
    spawn_app_with(test_settings).await
}

pub async fn app_with(tweak: impl FnOnce(&mut Settings)) -> TestApp {
    spawn_app_with(|s| {
        test_settings(s);
        tweak(s);
    })
    .await
}

pub struct Ws {
    pub id: Uuid,
    pub key: String,
}

/// A workspace created the way `switchboard admin create-workspace` creates one.
pub async fn workspace_with(
    app: &TestApp,
    credits: &str,
    threshold: Option<&str>,
    phone: Option<&str>,
) -> Ws {
    let db = sea_orm::Database::connect(&app.settings.database.url)
        .await
        .expect("database");
    let created = create_workspace(
        &db,
        app.clock_now(),
        10.0,
        NewWorkspace {
            name: "Acme Shop".into(),
            credits: credits.into(),
            low_credit_threshold: threshold.map(str::to_owned),
            phone_number: phone.map(str::to_owned),
            sender_name: None,
        },
    )
    .await
    .expect("workspace");
    db.close().await.ok();
    Ws {
        id: created.workspace.id,
        key: created.api_key,
    }
}

pub async fn workspace(app: &TestApp, credits: &str) -> Ws {
    workspace_with(app, credits, None, None).await
}

pub trait MessagingApp {
    fn m(&self, path: &str) -> String;
    fn clock_now(&self) -> chrono::DateTime<chrono::Utc>;
    fn post_key(&self, path: &str, key: &str, body: Value) -> impl Future<Output = Response>;
    fn get_key(&self, path: &str, key: &str) -> impl Future<Output = Response>;
    fn balance(&self, key: &str) -> impl Future<Output = Value>;
}

impl MessagingApp for TestApp {
    fn m(&self, path: &str) -> String {
        format!("{}{}", self.messaging, path)
    }

    fn clock_now(&self) -> chrono::DateTime<chrono::Utc> {
        use switchboard::core::clock::Clock;
        self.clock.now()
    }

    async fn post_key(&self, path: &str, key: &str, body: Value) -> Response {
        self.client
            .post(self.m(path))
            .header("X-API-Key", key)
            .json(&body)
            .send()
            .await
            .expect("request")
    }

    async fn get_key(&self, path: &str, key: &str) -> Response {
        self.client
            .get(self.m(path))
            .header("X-API-Key", key)
            .send()
            .await
            .expect("request")
    }

    async fn balance(&self, key: &str) -> Value {
        let res = self.get_key("/api/v1/account", key).await;
        assert_eq!(res.status(), 200);
        json_body(res).await["data"]["credits_balance"].clone()
    }
}

pub async fn json_body(res: Response) -> Value {
    let status = res.status();
    let text = res.text().await.expect("a body");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{status}: not JSON ({e}): {text}"))
}

/// Asserts the spec's error body with `code` and `status`.
pub async fn assert_err(res: Response, status: u16, code: &str) -> Value {
    assert_eq!(res.status().as_u16(), status, "status for {code}");
    let v = json_body(res).await;
    assert_eq!(v["success"], false, "{v}");
    assert_eq!(v["error"], code, "{v}");
    assert!(v["message"].as_str().is_some_and(|m| !m.is_empty()), "{v}");
    v
}

pub fn sms(to: &str, text: &str) -> Value {
    json!({"to": to, "channel": "sms", "content": {"text": text}})
}

/// Polls `check` until it returns Some, for at most ten seconds.
pub async fn eventually<T, F, Fut>(what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    for _ in 0..400 {
        if let Some(v) = check().await {
            return v;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("timed out waiting for {what}");
}

/// The message record as GET /api/v1/messages/{id} shows it.
pub async fn message(app: &TestApp, key: &str, id: &str) -> Value {
    let res = app.get_key(&format!("/api/v1/messages/{id}"), key).await;
    assert_eq!(res.status(), 200);
    json_body(res).await["data"].clone()
}

/// Sends one SMS to `to`; its id.
pub async fn send_sms(app: &TestApp, key: &str, to: &str, text: &str) -> String {
    let res = app
        .post_key("/api/v1/messages/send", key, sms(to, text))
        .await;
    assert_eq!(res.status(), 201);
    json_body(res).await["data"]["message_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Sends one SMS to `to` and waits until it reaches `status`; its id.
pub async fn send_until(app: &TestApp, key: &str, to: &str, text: &str, status: &str) -> String {
    let id = send_sms(app, key, to, text).await;
    wait_status(app, key, &id, status).await;
    id
}

pub async fn wait_status(app: &TestApp, key: &str, id: &str, status: &str) -> Value {
    eventually(&format!("message {id} {status}"), || async {
        let m = message(app, key, id).await;
        (m["status"] == status).then_some(m)
    })
    .await
}

/// Creates a webhook for `events` at `url`; returns (id, secret).
pub async fn webhook(app: &TestApp, key: &str, url: &str, events: &[&str]) -> (String, String) {
    let res = app
        .post_key(
            "/api/v1/webhooks",
            key,
            json!({"url": url, "events": events}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let v = json_body(res).await;
    (
        v["data"]["webhook"]["id"].as_str().unwrap().to_owned(),
        v["data"]["secret"].as_str().unwrap().to_owned(),
    )
}

/// A receiver that answers every POST with 200, subscribed to `events` of
/// the workspace with `key`: (receiver, webhook id).
pub async fn subscribed_receiver(
    app: &TestApp,
    key: &str,
    events: &[&str],
) -> (wiremock::MockServer, String) {
    let rx = wiremock::MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .respond_with(wiremock::ResponseTemplate::new(200))
        .mount(&rx)
        .await;
    let (hook, _) = webhook(app, key, &format!("{}/hook", rx.uri()), events).await;
    (rx, hook)
}

/// Delivery attempts of a webhook, newest first.
pub async fn attempts(app: &TestApp, key: &str, webhook_id: &str) -> Vec<Value> {
    let res = app
        .get_key(
            &format!("/api/v1/webhooks/{webhook_id}/deliveries?limit=1000"),
            key,
        )
        .await;
    assert_eq!(res.status(), 200);
    json_body(res).await["data"]["deliveries"]
        .as_array()
        .unwrap()
        .clone()
}

/// A connection of the test's own to the application's database, to read rows directly.
pub async fn db(app: &TestApp) -> sea_orm::DatabaseConnection {
    sea_orm::Database::connect(&app.settings.database.url)
        .await
        .expect("database")
}

/// One entry of a workspace's credit ledger as `GET /api/v1/account/ledger` shows it, with
/// the amount in hundredths of a credit.
#[derive(Debug)]
pub struct LedgerRow {
    pub message_id: Option<Uuid>,
    pub amount: i64,
    pub reason: String,
}

/// Every ledger entry of the workspace with `key` (grants, debits, refunds), read page by
/// page through the API.
pub async fn ledger(app: &TestApp, key: &str) -> Vec<LedgerRow> {
    let mut rows = Vec::new();
    for page in 1.. {
        let res = app
            .get_key(
                &format!("/api/v1/account/ledger?page={page}&limit=500"),
                key,
            )
            .await;
        assert_eq!(res.status(), 200);
        let v = json_body(res).await;
        let entries = v["data"]["entries"].as_array().unwrap().clone();
        rows.extend(entries.iter().map(|e| LedgerRow {
            message_id: e["message_id"].as_str().map(|s| s.parse().unwrap()),
            amount: (e["amount"].as_f64().unwrap() * 100.0).round() as i64,
            reason: e["reason"].as_str().unwrap().to_owned(),
        }));
        if entries.len() < 500 {
            break;
        }
    }
    rows
}

/// Twilio's signature over `url` and `params`, computed independently of the server.
pub fn carrier_signature(token: &str, url: &str, params: &[(&str, &str)]) -> String {
    use base64::Engine;
    use hmac::{Hmac, KeyInit, Mac};
    let mut sorted = params.to_vec();
    sorted.sort();
    let mut data = url.to_owned();
    for (k, v) in sorted {
        data.push_str(k);
        data.push_str(v);
    }
    let mut mac = <Hmac<sha1::Sha1> as KeyInit>::new_from_slice(token.as_bytes()).unwrap();
    mac.update(data.as_bytes());
    base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
}

/// Posts a correctly signed carrier callback.
pub async fn carrier_post(app: &TestApp, path: &str, params: &[(&str, &str)]) -> Response {
    carrier_post_signed_for(app, path, path, params).await
}

/// Posts a carrier callback to `path` with the signature of one to `signed_path`.
pub async fn carrier_post_signed_for(
    app: &TestApp,
    path: &str,
    signed_path: &str,
    params: &[(&str, &str)],
) -> Response {
    let sig = carrier_signature(
        &app.settings.providers.sms.auth_token,
        &format!(
            "{}{}",
            app.settings.services.messaging.public_url, signed_path
        ),
        params,
    );
    app.client
        .post(app.m(path))
        .header("X-Carrier-Signature", sig)
        .form(params)
        .send()
        .await
        .expect("request")
}

/// The HMAC-SHA256 hex a receiver computes: keyed with the SHA-256 hex of the secret.
/// The signature a receiver computes, with the `hmac` and `sha2` crates rather than the
/// server's own helper (which is pinned to RFC 4231 in its unit tests).
pub fn receiver_signature(secret: &str, payload: &[u8]) -> String {
    use hmac::{Hmac, KeyInit, Mac};
    use sha2::{Digest, Sha256};
    let key = hex::encode(Sha256::digest(secret.as_bytes()));
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key.as_bytes()).expect("any key");
    mac.update(payload);
    hex::encode(mac.finalize().into_bytes())
}

/// An application in its own actix System on its own thread, so that stopping it ends
/// everything it runs (listeners, dispatcher, webhook actors) as a process exit would.
pub struct Detached {
    pub base: String,
    stop: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Detached {
    pub fn start(
        settings: Settings,
        clock: std::sync::Arc<switchboard::core::clock::ManualClock>,
    ) -> Self {
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            let system = actix_web::rt::System::new();
            system.block_on(async move {
                let app = switchboard::Application::build_with(
                    settings,
                    switchboard::Overrides { clock: Some(clock) },
                )
                .await
                .expect("application builds");
                addr_tx
                    .send(app.address("messaging").expect("messaging runs"))
                    .unwrap();
                let handles = app.handles();
                actix_web::rt::spawn(app.run_until_stopped());
                let _ = actix_web::rt::task::spawn_blocking(move || stop_rx.recv()).await;
                for h in handles {
                    h.stop(false).await;
                }
                // Ends every arbiter of this System, as a process exit would.
                actix_web::rt::System::current().stop();
            });
        });
        let addr = addr_rx.recv().expect("address");
        Self {
            base: format!("http://{addr}"),
            stop: Some(stop_tx),
            thread: Some(thread),
        }
    }

    /// Stops the application and waits until its System has ended.
    pub fn stop(mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            t.join().expect("application thread");
        }
    }
}
