//! Watching the server: `/metrics` on its own listener after real traffic, read back with
//! Prometheus's own parser.

use crate::messaging::{
    app_with, attempts, eventually, message, send_until, sms, subscribed_receiver, workspace,
    MessagingApp,
};
use crate::sio::Sio;
use std::collections::BTreeMap;

/// One sample as Prometheus reads it: name, labels, value.
#[derive(Debug)]
struct Sample {
    name: String,
    labels: BTreeMap<String, String>,
    value: f64,
}

/// Parses `text` with `prometheus_client.parser.text_string_to_metric_families` (PyPI's
/// `prometheus_client`, installed by scripts/setup); panics when the parser is missing or
/// refuses the text.
fn parse_with_prometheus(text: &str) -> Vec<Sample> {
    use std::io::Write;
    const SCRIPT: &str = "import json, sys\n\
        from prometheus_client.parser import text_string_to_metric_families\n\
        out = []\n\
        for family in text_string_to_metric_families(sys.stdin.read()):\n\
        \x20   for s in family.samples:\n\
        \x20       out.append([s.name, s.labels, s.value])\n\
        print(json.dumps(out))\n";
    let mut child = std::process::Command::new("python3")
        .args(["-c", SCRIPT])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3 (scripts/setup installs it)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "Prometheus's parser (pip prometheus_client; scripts/setup installs it) refused or is missing: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<(String, BTreeMap<String, String>, f64)> =
        serde_json::from_slice(&out.stdout).unwrap();
    rows.into_iter()
        .map(|(name, labels, value)| Sample {
            name,
            labels,
            value,
        })
        .collect()
}

fn find<'a>(samples: &'a [Sample], name: &str, labels: &[(&str, &str)]) -> Option<&'a Sample> {
    samples.iter().find(|s| {
        s.name == name
            && labels
                .iter()
                .all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v))
    })
}

fn value(samples: &[Sample], name: &str, labels: &[(&str, &str)]) -> f64 {
    find(samples, name, labels)
        .unwrap_or_else(|| panic!("no {name} {labels:?} in {samples:#?}"))
        .value
}

async fn get(app: &crate::helpers::TestApp, url: &str) -> reqwest::Response {
    app.client.get(url).send().await.unwrap()
}

#[actix_web::test]
async fn metrics_after_real_traffic_parse_as_prometheus_text() {
    let app = app_with(|s| {
        s.telemetry.metrics_bind = "127.0.0.1:0".into();
        s.services.messaging.rate_limits.send =
            switchboard::core::config::LimitSettings::new(2, 60);
    })
    .await;
    assert!(!app.metrics.is_empty(), "the metrics listener runs");
    let ws = workspace(&app, "10").await;
    let (_rx, hook) = subscribed_receiver(&app, &ws.key, &["message.delivered"]).await;
    // A send, its dispatch job, its webhook; then a read by id and a refused send.
    let id = send_until(&app, &ws.key, "+14155550123", "hello", "delivered").await;
    eventually("webhook delivered", || async {
        (!attempts(&app, &ws.key, &hook).await.is_empty()).then_some(())
    })
    .await;
    message(&app, &ws.key, &id).await;
    let second = app
        .post_key("/api/v1/messages/send", &ws.key, sms("+14155550123", "x"))
        .await;
    assert_eq!(second.status(), 201);
    let refused = app
        .post_key("/api/v1/messages/send", &ws.key, sms("+14155550123", "x"))
        .await;
    assert_eq!(refused.status(), 429);
    assert_eq!(get(&app, &app.m("/no/such/page/123")).await.status(), 404);
    let _socket = Sio::connect(&app).await;

    let res = get(&app, &format!("{}/metrics", app.metrics)).await;
    assert_eq!(res.status(), 200);
    let content_type = res.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(
        content_type.starts_with("text/plain; version=0.0.4"),
        "{content_type}"
    );
    let text = res.text().await.unwrap();
    let samples = parse_with_prometheus(&text);

    let requests = "switchboard_http_request_duration_seconds_count";
    let by_id = [
        ("service", "messaging"),
        ("method", "GET"),
        ("route", "/api/v1/messages/{id}"),
        ("status", "200"),
    ];
    assert!(value(&samples, requests, &by_id) >= 1.0);
    let sends = [
        ("service", "messaging"),
        ("route", "/api/v1/messages/send"),
        ("status", "201"),
    ];
    assert!(value(&samples, requests, &sends) >= 2.0);
    let refusals = [("route", "/api/v1/messages/send"), ("status", "429")];
    assert!(value(&samples, requests, &refusals) >= 1.0);
    assert!(
        find(
            &samples,
            "switchboard_http_request_duration_seconds_bucket",
            &by_id
        )
        .is_some(),
        "latency histogram buckets"
    );
    // Label values are route templates: no id, no unknown path.
    for s in samples.iter().filter(|s| s.labels.contains_key("route")) {
        let route = &s.labels["route"];
        assert!(!route.contains(&id), "raw id in {s:?}");
        assert!(!route.contains("/no/such"), "raw path in {s:?}");
    }
    assert!(
        value(
            &samples,
            requests,
            &[("route", "<unmatched>"), ("status", "404")]
        ) >= 1.0
    );
    let limited = [("service", "messaging"), ("route", "/api/v1/messages/send")];
    assert!(
        value(
            &samples,
            "switchboard_rate_limited_requests_total",
            &limited
        ) >= 1.0
    );
    assert!(
        value(
            &samples,
            "switchboard_webhook_deliveries_total",
            &[("outcome", "delivered")]
        ) >= 1.0
    );
    assert!(value(&samples, "switchboard_socketio_connections", &[]) >= 1.0);
    assert!(
        value(
            &samples,
            "switchboard_socketio_packets_total",
            &[("direction", "in")]
        ) >= 1.0
    );
    // Read from this application at scrape time.
    assert_eq!(value(&samples, "switchboard_jobs_scrape_ok", &[]), 1.0);
    assert!(
        samples
            .iter()
            .any(|s| s.name == "switchboard_jobs" && s.labels.contains_key("topic")),
        "the queue by topic: {text}"
    );
    let running = value(
        &samples,
        "switchboard_actors_running",
        &[("service", "messaging"), ("kind", "webhook.endpoint")],
    );
    assert!(running >= 1.0, "the webhook's endpoint actor runs");
    let in_use = value(
        &samples,
        "switchboard_db_pool_connections",
        &[("state", "in_use")],
    );
    let idle = value(
        &samples,
        "switchboard_db_pool_connections",
        &[("state", "idle")],
    );
    assert!(in_use + idle >= 1.0, "the pool has connections");
    assert!(value(&samples, "switchboard_db_pool_max_connections", &[]) >= 1.0);
    assert!(find(&samples, "switchboard_db_pool_acquire_seconds", &[]).is_some());
    // Only /metrics is served there.
    let other = get(&app, &format!("{}/api/v1/account", app.metrics)).await;
    assert_eq!(other.status(), 404);
}
