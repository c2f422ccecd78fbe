//! Every metric of the process, in the Prometheus text format (`docs/operations.md`
//! lists them). Features record through the functions here; nothing else names a metric.
//!
//! Counters and histograms count what this process did, so they live in one registry for
//! the process. What is read at scrape time — the job queue, the database pool, Redis, the
//! running actors — belongs to one application ([`Sources`] in its `CoreContext`) and is
//! asked when `/metrics` is scraped (`listener`).
//!
//! Label values are bounded: route templates (never paths), service names, job topics and
//! limit names, all fixed by the code; anything else gets a fixed label.

// The listener and the scrape read an application (`CoreContext`), which holds `Sources`:
// they live beside this module, not under its name, so the core has no import circle.
pub mod listener;
mod scrape;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use std::collections::HashSet;
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::time::Duration;
use switchboard_entities::core::actor_lease::ActorKind;

/// The route label of a request no route matched.
pub const UNMATCHED: &str = "<unmatched>";

/// Request latency buckets in seconds: 1 ms … 10 s.
const LATENCY_BUCKETS: [f64; 14] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    service: &'static str,
    method: &'static str,
    route: &'static str,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    service: &'static str,
    route: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct TopicLabels {
    topic: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct DirectionLabels {
    direction: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct DeliveryLabels {
    service: &'static str,
    outcome: &'static str,
}

fn latency_histogram() -> Histogram {
    Histogram::new(LATENCY_BUCKETS)
}

/// What this process counts.
struct Process {
    registry: Registry,
    requests: Family<RequestLabels, Histogram, fn() -> Histogram>,
    rate_limited: Family<RouteLabels, Counter>,
    job_failures: Family<TopicLabels, Counter>,
    socket_connections: Gauge,
    socket_packets: Family<DirectionLabels, Counter>,
    webhook_deliveries: Family<DeliveryLabels, Counter>,
    bus_messages: Family<DirectionLabels, Counter>,
    bus_publish_failures: Counter,
}

fn process() -> &'static Process {
    static PROCESS: OnceLock<Process> = OnceLock::new();
    PROCESS.get_or_init(|| {
        let mut r = Registry::with_prefix("switchboard");
        Process {
            requests: add(
                &mut r,
                "http_request_duration_seconds",
                "HTTP requests answered, by service, method, route template and status, with their latency",
                Family::new_with_constructor(latency_histogram),
            ),
            rate_limited: add(
                &mut r,
                "rate_limited_requests",
                "Requests refused by a rate limit (429), by service and route template",
                Family::default(),
            ),
            job_failures: add(
                &mut r,
                "job_failures",
                "Job attempts that failed (retried or dead), by topic",
                Family::default(),
            ),
            socket_connections: add(
                &mut r,
                "socketio_connections",
                "Engine.IO connections open now",
                Gauge::default(),
            ),
            socket_packets: add(
                &mut r,
                "socketio_packets",
                "Socket.IO packets received (in) and sent (out)",
                Family::default(),
            ),
            webhook_deliveries: add(
                &mut r,
                "webhook_deliveries",
                "Webhook delivery attempts by outcome: delivered (2xx), rejected (other status), timeout, failed (no answer), refused (address not allowed)",
                Family::default(),
            ),
            bus_messages: add(
                &mut r,
                "bus_messages",
                "Cluster bus messages published and received",
                Family::default(),
            ),
            bus_publish_failures: add(
                &mut r,
                "bus_publish_failures",
                "Cluster bus messages that could not be published (Redis unreachable)",
                Counter::default(),
            ),
            registry: r,
        }
    })
}

/// Registers `metric` under `name` and hands it back to record through.
pub(super) fn add<M: prometheus_client::registry::Metric + Clone>(
    registry: &mut Registry,
    name: &str,
    help: &str,
    metric: M,
) -> M {
    registry.register(name, help, metric.clone());
    metric
}

/// `value` as a `'static` label. Only values from a set the code fixes come here (route
/// templates, job topics), so the set stays small; each is kept once.
fn label(value: &str) -> &'static str {
    static SEEN: OnceLock<RwLock<HashSet<&'static str>>> = OnceLock::new();
    let seen = SEEN.get_or_init(Default::default);
    if let Some(known) = seen.read().ok().and_then(|s| s.get(value).copied()) {
        return known;
    }
    let Ok(mut seen) = seen.write() else {
        return UNMATCHED;
    };
    if let Some(known) = seen.get(value) {
        return known;
    }
    let kept: &'static str = Box::leak(value.to_owned().into_boxed_str());
    seen.insert(kept);
    kept
}

fn method_label(method: &actix_web::http::Method) -> &'static str {
    use actix_web::http::Method;
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

/// One answered request. `route` is the matched route template, None when none matched.
pub fn http_request(
    service: &'static str,
    method: &actix_web::http::Method,
    route: Option<&str>,
    status: u16,
    took: Duration,
) {
    let labels = RequestLabels {
        service,
        method: method_label(method),
        route: route.map_or(UNMATCHED, label),
        status,
    };
    process()
        .requests
        .get_or_create(&labels)
        .observe(took.as_secs_f64());
}

/// A request a rate limit refused.
pub fn rate_limited(service: &'static str, route: Option<&str>) {
    let labels = RouteLabels {
        service,
        route: route.map_or(UNMATCHED, label),
    };
    process().rate_limited.get_or_create(&labels).inc();
}

/// A job attempt that failed.
pub fn job_failed(topic: &str) {
    let labels = TopicLabels {
        topic: label(topic),
    };
    process().job_failures.get_or_create(&labels).inc();
}

/// An open Engine.IO connection: counted until dropped.
pub struct SocketOpen(());

impl SocketOpen {
    pub fn new() -> Self {
        process().socket_connections.inc();
        Self(())
    }
}

impl Default for SocketOpen {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for SocketOpen {
    fn drop(&mut self) {
        process().socket_connections.dec();
    }
}

/// A Socket.IO packet received (`inbound`) or sent.
pub fn socket_packet(inbound: bool) {
    let direction = if inbound { "in" } else { "out" };
    process()
        .socket_packets
        .get_or_create(&DirectionLabels { direction })
        .inc();
}

/// How a webhook delivery attempt ended.
#[derive(Debug, Clone, Copy)]
pub enum Delivery {
    Delivered,
    Rejected,
    TimedOut,
    Failed,
    Refused,
}

/// A webhook attempt of `service` (messaging's endpoints, interview's notifications).
pub fn webhook_delivery(service: &'static str, outcome: Delivery) {
    let outcome = match outcome {
        Delivery::Delivered => "delivered",
        Delivery::Rejected => "rejected",
        Delivery::TimedOut => "timeout",
        Delivery::Failed => "failed",
        Delivery::Refused => "refused",
    };
    process()
        .webhook_deliveries
        .get_or_create(&DeliveryLabels { service, outcome })
        .inc();
}

/// A cluster bus message published (`published`) or received.
pub fn bus_message(published: bool) {
    let direction = if published { "published" } else { "received" };
    process()
        .bus_messages
        .get_or_create(&DirectionLabels { direction })
        .inc();
}

pub fn bus_publish_failed() {
    process().bus_publish_failures.inc();
}

type Count = Box<dyn Fn() -> usize + Send + Sync>;
/// Service, actor kind, and how many run.
type ActorCount = (&'static str, &'static str, Count);

/// What one application reports at scrape time besides the queue and the pool: how many
/// actors of each kind run, as the services that start them registered.
#[derive(Clone, Default)]
pub struct Sources {
    actors: Arc<Mutex<Vec<ActorCount>>>,
}

impl Sources {
    /// `count` tells how many actors of `kind` run for `service` now.
    pub fn actors(
        &self,
        service: &'static str,
        kind: ActorKind,
        count: impl Fn() -> usize + Send + Sync + 'static,
    ) {
        if let Ok(mut actors) = self.actors.lock() {
            actors.push((service, kind.as_str(), Box::new(count)));
        }
    }

    fn running(&self) -> Vec<(&'static str, &'static str, usize)> {
        self.actors
            .lock()
            .map(|a| a.iter().map(|(s, k, count)| (*s, *k, count())).collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn labels_are_kept_once() {
        let a = super::label(&String::from("/api/v1/things/{id}"));
        let b = super::label(&String::from("/api/v1/things/{id}"));
        assert!(std::ptr::eq(a, b));
    }
}
