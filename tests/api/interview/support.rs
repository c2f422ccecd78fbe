use crate::helpers::{body, spawn_app_with, TestApp};
pub use crate::sio::Sio;
use reqwest::Response;
use serde_json::{json, Value};
use std::time::Duration;
use switchboard::settings::Settings;

pub const API_KEY: &str = "test-api-key";
pub const ADMIN_KEY: &str = "test-admin-key";

/// Fast timers so tests that move the clock see the actor react within milliseconds.
pub fn fast(s: &mut Settings) {
    s.services.interview.api_key = API_KEY.into();
    s.services.interview.admin_key = ADMIN_KEY.into();
    s.services.interview.timer_tick_ms = 20;
    s.jobs.poll_interval_ms = 20;
    s.services.interview.webhook.timeout_secs = 5;
}

pub async fn app() -> TestApp {
    app_with(|_| {}).await
}

pub async fn app_with(tweak: impl FnOnce(&mut Settings)) -> TestApp {
    spawn_app_with(|s| {
        s.services.identity.enabled = false;
        s.services.messaging.enabled = false;
        fast(s);
        tweak(s);
    })
    .await
}

pub fn url(app: &TestApp, path: &str) -> String {
    format!("{}{path}", app.interview)
}

pub async fn post_key(app: &TestApp, path: &str, body: Value) -> Response {
    app.client
        .post(url(app, path))
        .header("X-API-Key", API_KEY)
        .json(&body)
        .send()
        .await
        .expect("request")
}

pub async fn get_key(app: &TestApp, path: &str) -> Response {
    app.client
        .get(url(app, path))
        .header("X-API-Key", API_KEY)
        .send()
        .await
        .expect("request")
}

/// A candidate call: authenticated with the session token only.
pub async fn post_token(app: &TestApp, path: &str, token: &str, body: Option<Value>) -> Response {
    let mut req = app
        .client
        .post(url(app, path))
        .header("X-Session-Token", token);
    if let Some(b) = body {
        req = req.json(&b);
    }
    req.send().await.expect("request")
}

pub fn job(extra: Value) -> Value {
    let mut base = json!({
        "candidate_name": "Ada Lovelace",
        "job_title": "Backend Engineer",
        "job_category": "engineering",
        "experience_level": "senior",
        "job_description": "Build services in Rust with PostgreSQL and Docker.",
        "cv_text": "Eight years of Rust and PostgreSQL; led a team of five.",
        "user_id": "user-1",
        "application_id": "app-9",
        "max_questions": 3,
        "time_limit_minutes": 30,
        "metadata": {"source": "test"}
    });
    if let (Some(b), Some(e)) = (base.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            b.insert(k.clone(), v.clone());
        }
    }
    base
}

/// Creates a session; returns the creation response.
pub async fn create(app: &TestApp, extra: Value) -> Value {
    let res = post_key(app, "/api/v1/sessions", job(extra)).await;
    assert_eq!(res.status(), 201, "create");
    body(res).await
}

pub fn id(s: &Value) -> String {
    s["id"].as_str().expect("id").to_owned()
}

pub async fn start(app: &TestApp, s: &Value) -> Value {
    let res = post_key(app, &format!("/api/v1/sessions/{}/start", id(s)), json!({})).await;
    assert_eq!(res.status(), 200, "start");
    body(res).await
}

pub async fn answer(app: &TestApp, s: &Value, content: &str) -> Response {
    post_key(
        app,
        &format!("/api/v1/sessions/{}/messages", id(s)),
        json!({ "content": content }),
    )
    .await
}

pub const GOOD_ANSWER: &str = "At my last job I rebuilt our billing service in Rust because the old one could not keep up. First I measured the hot paths, then moved them to Rust with PostgreSQL. As a result latency dropped by 60% and the team shipped faster together.";

/// Polls GET session until `status` or panics after a few seconds.
pub async fn wait_status(app: &TestApp, s: &Value, status: &str) -> Value {
    for _ in 0..200 {
        let v = body(get_key(app, &format!("/api/v1/sessions/{}", id(s))).await).await;
        if v["status"] == status {
            return v;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("session never reached {status}");
}

/// Asserts the interview error envelope.
pub async fn assert_error(res: Response, status: u16, code: &str) -> Value {
    assert_eq!(res.status().as_u16(), status, "status for {code}");
    let v = body(res).await;
    assert_eq!(v["success"], false, "{v}");
    assert_eq!(v["error"]["code"], code, "{v}");
    assert!(v["error"]["message"].is_string());
    assert!(v["error"]["details"].is_object());
    v
}

/// An app whose interviewer is the OpenAI-compatible chat API at `model` (a wiremock server).
pub async fn openai_app(model: &wiremock::MockServer) -> TestApp {
    let base = format!("{}/v1", model.uri());
    app_with(move |s| {
        s.ai.provider = "openai".into();
        s.ai.base_url = base;
        s.ai.api_key = "sk-test".into();
        s.ai.model = "test-model".into();
    })
    .await
}
