//! Load generator for the messaging service (see docs/benchmarks.md and benches/messaging.sh).
//!
//!   messaging_load single   BASE KEY N CONCURRENCY
//!   messaging_load bulk     BASE KEY REQUESTS RECIPIENTS
//!   messaging_load webhooks BASE KEY WEBHOOKS MESSAGES
//!
//! Prints throughput and p50/p99 latency. The webhook mode starts a local receiver, points
//! WEBHOOKS webhooks (message.sent) at it and sends MESSAGES messages in bulk; it reports
//! deliveries per second and the delay from event creation to receipt.
// A load tool: a failed set-up step should stop it loudly, so it may unwrap.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use actix_web::{web, App, HttpResponse, HttpServer};
use futures_util::StreamExt;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let idx = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[idx.min(sorted.len() - 1)]
}

fn report(what: &str, mut ms: Vec<f64>, count: usize, elapsed: Duration) {
    ms.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "{what}: {count} in {:.2} s = {:.0}/s; latency p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        elapsed.as_secs_f64(),
        count as f64 / elapsed.as_secs_f64(),
        percentile(&ms, 50.0),
        percentile(&ms, 99.0),
        ms.last().copied().unwrap_or(f64::NAN),
    );
}

async fn single(base: String, key: String, n: usize, concurrency: usize) {
    let client = reqwest::Client::new();
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..concurrency {
        let (client, base, key, next) = (client.clone(), base.clone(), key.clone(), next.clone());
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::new();
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let t = Instant::now();
                let res = client
                    .post(format!("{base}/api/v1/messages/send"))
                    .header("X-API-Key", &key)
                    .json(&json!({"to": format!("+1415{:07}", i), "channel": "sms",
                                  "content": {"text": "Benchmark message"}}))
                    .send()
                    .await
                    .expect("request");
                assert_eq!(
                    res.status(),
                    201,
                    "{}",
                    res.text().await.unwrap_or_default()
                );
                lat.push(t.elapsed().as_secs_f64() * 1000.0);
            }
            lat
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    report("single send", all, n, started.elapsed());
}

fn bulk_body(recipients: usize, offset: usize) -> Value {
    let list: Vec<Value> = (0..recipients)
        .map(|i| json!({"to": format!("+1416{:07}", offset + i), "name": format!("n{i}")}))
        .collect();
    json!({"channel": "sms", "content": {"text": "Hi {{name}}, your order shipped"}, "recipients": list})
}

async fn bulk(base: String, key: String, requests: usize, recipients: usize) {
    let client = reqwest::Client::new();
    let mut lat = Vec::new();
    let mut refused = 0;
    let started = Instant::now();
    for r in 0..requests {
        let body = bulk_body(recipients, r * recipients);
        let t = Instant::now();
        let res = client
            .post(format!("{base}/api/v1/messages/bulk"))
            .header("X-API-Key", &key)
            .json(&body)
            .send()
            .await
            .expect("request");
        let status = res.status();
        let v: Value = res.json().await.expect("json");
        lat.push(t.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(status, 201, "{v}");
        let queued = v["data"]["queued"].as_u64().unwrap_or(0) as usize;
        let failed = v["data"]["failed"].as_u64().unwrap_or(0) as usize;
        assert_eq!(queued + failed, recipients, "{v}");
        refused += failed;
    }
    let elapsed = started.elapsed();
    report(&format!("bulk of {recipients}"), lat, requests, elapsed);
    println!("bulk recipients refused as opted out: {refused}");
    println!(
        "bulk messages accepted: {:.0}/s",
        (requests * recipients) as f64 / elapsed.as_secs_f64()
    );
}

/// Puts `n` numbers on the workspace's suppression list: every 100th number the bulk run
/// sends to (10 in each bulk of 1,000), the rest numbers it never sends to.
async fn suppress(base: String, key: String, n: usize, concurrency: usize) {
    let client = reqwest::Client::new();
    let started = Instant::now();
    let numbers: Vec<String> = (0..n)
        .map(|i| {
            if i < 200 {
                format!("+1416{:07}", i * 100)
            } else {
                format!("+1417{i:07}")
            }
        })
        .collect();
    futures_util::stream::iter(numbers)
        .map(|to| {
            let (client, base, key) = (client.clone(), base.clone(), key.clone());
            async move {
                let res = client
                    .post(format!("{base}/api/v1/suppressions"))
                    .header("X-API-Key", &key)
                    .json(&json!({"channel": "sms", "address": to}))
                    .send()
                    .await
                    .expect("suppress");
                assert_eq!(res.status(), 201);
            }
        })
        .buffer_unordered(concurrency)
        .collect::<Vec<()>>()
        .await;
    println!(
        "{n} suppressions added in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

type Seen = Arc<Mutex<Vec<(Instant, f64)>>>;

async fn receive(seen: web::Data<Seen>, body: web::Bytes) -> HttpResponse {
    let now = chrono::Utc::now();
    let delay_ms = serde_json::from_slice::<Value>(&body)
        .ok()
        .and_then(|v| v["created_at"].as_str().map(str::to_owned))
        .and_then(|s| chrono::DateTime::parse_from_rfc3339(&s).ok())
        .map_or(f64::NAN, |t| {
            (now - t.with_timezone(&chrono::Utc))
                .num_microseconds()
                .unwrap_or(0) as f64
                / 1000.0
        });
    seen.lock().unwrap().push((Instant::now(), delay_ms));
    HttpResponse::Ok().finish()
}

async fn webhooks(base: String, key: String, hooks: usize, messages: usize) {
    let seen: Seen = Arc::new(Mutex::new(Vec::new()));
    let data = web::Data::new(seen.clone());
    let server = HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .default_service(web::to(receive))
    })
    .workers(1)
    .bind("127.0.0.1:0")
    .expect("bind receiver");
    let addr = server.addrs()[0];
    actix_web::rt::spawn(server.run());
    let client = reqwest::Client::new();
    for _ in 0..hooks {
        let res = client
            .post(format!("{base}/api/v1/webhooks"))
            .header("X-API-Key", &key)
            .json(&json!({"url": format!("http://{addr}/hook"), "events": ["message.sent"]}))
            .send()
            .await
            .expect("create webhook");
        assert_eq!(
            res.status(),
            201,
            "{}",
            res.text().await.unwrap_or_default()
        );
    }
    let expected = hooks * messages;
    let started = Instant::now();
    let mut sent = 0;
    while sent < messages {
        let n = (messages - sent).min(1000);
        let res = client
            .post(format!("{base}/api/v1/messages/bulk"))
            .header("X-API-Key", &key)
            .json(&bulk_body(n, 5_000_000 + sent))
            .send()
            .await
            .expect("bulk");
        assert_eq!(res.status(), 201);
        sent += n;
    }
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        let got = seen.lock().unwrap().len();
        if got >= expected || Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let rows = seen.lock().unwrap().clone();
    let last = rows.iter().map(|r| r.0).max().unwrap_or(started);
    report(
        &format!("webhook deliveries ({hooks} endpoints)"),
        rows.iter().map(|r| r.1).collect(),
        rows.len(),
        last - started,
    );
}

#[actix_web::main]
async fn main() {
    // reqwest is built without a crypto provider of its own (core::tls).
    switchboard::core::tls::install_crypto_provider();
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: messaging_load single|bulk|webhooks|suppress BASE KEY A B";
    let (mode, base, key) = (
        args.get(1).expect(usage).clone(),
        args.get(2).expect(usage).clone(),
        args.get(3).expect(usage).clone(),
    );
    let a: usize = args.get(4).and_then(|s| s.parse().ok()).expect(usage);
    let b: usize = args.get(5).and_then(|s| s.parse().ok()).expect(usage);
    match mode.as_str() {
        "single" => single(base, key, a, b).await,
        "bulk" => bulk(base, key, a, b).await,
        "webhooks" => webhooks(base, key, a, b).await,
        "suppress" => suppress(base, key, a, b).await,
        _ => panic!("{usage}"),
    }
}
