//! Watching the server: `/metrics` on its own listener after real traffic, read back with
//! Prometheus's own parser.

use crate::helpers::ServedBinary;
use crate::messaging::{
    app_with, attempts, eventually, message, send_until, sms, subscribed_receiver, workspace,
    MessagingApp,
};
use crate::sio::Sio;
use std::collections::BTreeMap;

/// One sample as Prometheus reads it: name, labels, value.
#[derive(Debug)]
pub(crate) struct Sample {
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

pub(crate) fn value(samples: &[Sample], name: &str, labels: &[(&str, &str)]) -> f64 {
    find(samples, name, labels)
        .unwrap_or_else(|| panic!("no {name} {labels:?} in {samples:#?}"))
        .value
}

async fn get(app: &crate::helpers::TestApp, url: &str) -> reqwest::Response {
    app.client.get(url).send().await.unwrap()
}

/// `app`'s metrics listener read now, through Prometheus's parser.
pub(crate) async fn scrape(app: &crate::helpers::TestApp) -> Vec<Sample> {
    assert!(!app.metrics.is_empty(), "the metrics listener runs");
    let res = get(app, &format!("{}/metrics", app.metrics)).await;
    assert_eq!(res.status(), 200);
    parse_with_prometheus(&res.text().await.unwrap())
}

/// Waits until a scrape of `app` holds `name` with `labels` at a value `ok` accepts.
pub(crate) async fn scraped_until(
    app: &crate::helpers::TestApp,
    name: &str,
    labels: &[(&str, &str)],
    ok: impl Fn(f64) -> bool,
) {
    eventually(name, || async {
        let samples = scrape(app).await;
        find(&samples, name, labels)
            .filter(|s| ok(s.value))
            .map(|_| ())
    })
    .await
}

#[actix_web::test]
async fn a_failing_job_is_counted_under_its_topic() {
    use sea_orm::ConnectionTrait;
    let app = app_with(|s| {
        s.telemetry.metrics_bind = "127.0.0.1:0".into();
        s.services.messaging.webhooks.sweep_interval_secs = 1;
    })
    .await;
    // The periodic resume of webhook deliveries cannot read its table for a while.
    let db = crate::messaging::db(&app).await;
    db.execute_unprepared(
        "ALTER TABLE messaging_webhook_deliveries RENAME TO messaging_webhook_deliveries_off",
    )
    .await
    .unwrap();
    let topic = [("topic", "messaging.webhooks.resume")];
    scraped_until(&app, "switchboard_job_failures_total", &topic, |n| n >= 1.0).await;
    db.execute_unprepared(
        "ALTER TABLE messaging_webhook_deliveries_off RENAME TO messaging_webhook_deliveries",
    )
    .await
    .unwrap();
    db.close().await.ok();
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
            &[("service", "messaging"), ("outcome", "delivered")]
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

/// `switchboard serve --only messaging` with `env` (settings as `SWITCHBOARD__…` variables).
async fn serve_binary(dir: &std::path::Path, env: &[(&str, String)]) -> ServedBinary {
    ServedBinary::start("messaging", dir, env).await
}

#[actix_web::test]
async fn json_logs_give_each_request_one_object_with_every_field() {
    let dir = tempfile::tempdir().unwrap();
    let server = serve_binary(
        dir.path(),
        &[
            ("SWITCHBOARD__TELEMETRY__LOG_FORMAT", "json".into()),
            ("SWITCHBOARD__CLUSTER__NODE_ID", "node-json-test".into()),
        ],
    )
    .await;
    let res = crate::helpers::http_client()
        .get(format!("{}/health?pin=123456", server.base))
        .header("X-Request-ID", "json-log-test-1")
        .header("Authorization", "Bearer secret-token-in-a-header")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let out = server.stop();
    let lines: Vec<serde_json::Value> = out
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let line = lines
        .iter()
        .find(|l| l["span"]["request_id"] == "json-log-test-1" && l["message"] == "request")
        .unwrap_or_else(|| panic!("no access line for the request in {out}"));
    let time = line["timestamp"].as_str().expect("timestamp");
    assert!(chrono::DateTime::parse_from_rfc3339(time).is_ok(), "{time}");
    assert_eq!(line["level"], "INFO");
    assert_eq!(line["span"]["service"], "messaging");
    assert_eq!(line["span"]["route"], "/health");
    assert_eq!(line["span"]["method"], "GET");
    assert_eq!(line["span"]["node"], "node-json-test");
    assert_eq!(line["status"], 200);
    assert!(line["latency_ms"].as_f64().expect("latency_ms") >= 0.0);
    assert!(!out.contains("123456"), "query string logged: {out}");
    assert!(!out.contains("secret-token"), "header logged: {out}");
}

/// An OTLP/HTTP receiver: every span POSTed to `/v1/traces` (protobuf), kept in order.
async fn otlp_receiver() -> (
    String,
    std::sync::Arc<std::sync::Mutex<Vec<opentelemetry_proto::tonic::trace::v1::Span>>>,
) {
    use actix_web::{web, App, HttpResponse, HttpServer};
    use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
    use prost::Message;
    let spans = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = spans.clone();
    let server = HttpServer::new(move || {
        let kept = kept.clone();
        App::new().route(
            "/v1/traces",
            web::post().to(move |body: web::Bytes| {
                let kept = kept.clone();
                async move {
                    let req = ExportTraceServiceRequest::decode(body).expect("OTLP protobuf");
                    let mut kept = kept.lock().unwrap();
                    for rs in req.resource_spans {
                        for ss in rs.scope_spans {
                            kept.extend(ss.spans);
                        }
                    }
                    HttpResponse::Ok().finish()
                }
            }),
        )
    })
    .workers(1)
    .bind("127.0.0.1:0")
    .unwrap();
    let addr = server.addrs()[0];
    actix_web::rt::spawn(server.run());
    (format!("http://{addr}"), spans)
}

#[actix_web::test]
async fn a_request_with_traceparent_exports_its_span_with_a_database_child() {
    let (endpoint, spans) = otlp_receiver().await;
    let dir = tempfile::tempdir().unwrap();
    let server = serve_binary(
        dir.path(),
        &[
            ("SWITCHBOARD__TELEMETRY__OTLP_ENDPOINT", endpoint),
            // The batch processor sends every 100 ms instead of every 5 s.
            ("OTEL_BSP_SCHEDULE_DELAY", "100".into()),
        ],
    )
    .await;
    let trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
    let caller_span = "00f067aa0ba902b7";
    let res = crate::helpers::http_client()
        .get(format!("{}/health", server.base))
        .header("traceparent", format!("00-{trace_id}-{caller_span}-01"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let started = std::time::Instant::now();
    let (request, db) = loop {
        let found = {
            let spans = spans.lock().unwrap();
            let in_trace: Vec<_> = spans
                .iter()
                .filter(|s| hex::encode(&s.trace_id) == trace_id)
                .cloned()
                .collect();
            let request = in_trace
                .iter()
                .find(|s| hex::encode(&s.parent_span_id) == caller_span)
                .cloned();
            request.and_then(|r| {
                let db = in_trace
                    .iter()
                    .find(|s| s.parent_span_id == r.span_id && s.name.starts_with("sea_orm."))
                    .cloned()?;
                Some((r, db))
            })
        };
        if let Some(found) = found {
            break found;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "no request span with a database child in trace {trace_id}: {:#?}\n{}",
            spans.lock().unwrap(),
            server.output()
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    server.stop();
    assert_eq!(request.name, "GET /health");
    let db_system = db.attributes.iter().find(|a| a.key == "db.system");
    assert!(
        db_system.is_some(),
        "database span attributes: {:?}",
        db.attributes
    );
    let attrs: Vec<&str> = request.attributes.iter().map(|a| a.key.as_str()).collect();
    assert!(
        attrs.contains(&"request_id") && attrs.contains(&"route"),
        "{attrs:?}"
    );
}
