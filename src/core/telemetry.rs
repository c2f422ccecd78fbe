//! Logs and request ids. A request id is taken from `X-Request-ID` when the caller sent a
//! sane one, otherwise generated, echoed back, and attached to every log line of the request.
//! Headers, bodies and query strings are never logged: they carry PINs, codes and tokens.

use super::clock::SharedClock;
use super::rate_limit::AppliedLimit;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{web, HttpMessage};
use std::rc::Rc;
use std::sync::Arc;
use tracing::Instrument;
use tracing_subscriber::EnvFilter;

/// What the fmt layer shows unless `RUST_LOG` says otherwise.
const DEFAULT_FILTER: &str = "info,sqlx=warn,sea_orm=warn,actix_server=warn";

/// The trace exporter, flushed by [`Telemetry::finish`] at exit.
#[must_use]
pub struct Telemetry(Option<opentelemetry_sdk::trace::SdkTracerProvider>);

impl Telemetry {
    /// Sends the spans still buffered (on a blocking thread: the exporter waits on HTTP).
    pub async fn finish(self) {
        if let Some(provider) = self.0 {
            let flushed = tokio::task::spawn_blocking(move || provider.shutdown()).await;
            if let Ok(Err(e)) = flushed {
                eprintln!("traces: the last spans were not sent: {e}");
            }
        }
    }
}

/// Logs in `settings.log_format` (filtered by `RUST_LOG`), the error ring of
/// `GET /admin/system`, and trace export when `settings.otlp_endpoint` is set. Once per
/// process; later calls change nothing.
pub fn init(settings: &super::config::TelemetrySettings) -> Telemetry {
    use super::config::LogFormat;
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    use tracing_subscriber::Layer;
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    let logs = match settings.log_format {
        LogFormat::Text => tracing_subscriber::fmt::layer().boxed(),
        // One object per line: the event's fields at the top, the request span's (request
        // id, service, route, node) under "span".
        LogFormat::Json => tracing_subscriber::fmt::layer()
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .boxed(),
    };
    let provider = match super::traces::start(settings) {
        Ok(provider) => provider,
        Err(e) => {
            eprintln!("[telemetry] otlp_endpoint: traces are off: {e}");
            None
        }
    };
    let traces = provider
        .as_ref()
        .map(|p| super::traces::layer(p).with_filter(super::traces::filter()));
    let _ = tracing_subscriber::registry()
        .with(logs.with_filter(filter))
        .with(ErrorRing.with_filter(tracing_subscriber::filter::LevelFilter::ERROR))
        .with(traces)
        .try_init();
    Telemetry(provider)
}

/// Error lines kept for `GET /admin/system`: the newest, at most this many.
const RECENT_ERRORS: usize = 50;

fn ring() -> &'static std::sync::Mutex<std::collections::VecDeque<String>> {
    static RING: std::sync::OnceLock<std::sync::Mutex<std::collections::VecDeque<String>>> =
        std::sync::OnceLock::new();
    RING.get_or_init(|| std::sync::Mutex::new(std::collections::VecDeque::new()))
}

/// The newest ERROR lines of this process, oldest first.
pub fn recent_errors() -> Vec<String> {
    ring()
        .lock()
        .map(|r| r.iter().cloned().collect())
        .unwrap_or_default()
}

/// Keeps an ERROR event as one line (time, target, its fields) in a bounded ring.
pub fn record_error(line: String) {
    if let Ok(mut r) = ring().lock() {
        if r.len() == RECENT_ERRORS {
            r.pop_front();
        }
        r.push_back(line);
    }
}

/// The tracing layer that feeds [`recent_errors`].
struct ErrorRing;

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for ErrorRing {
    fn on_event(
        &self,
        event: &tracing::Event<'_>,
        _ctx: tracing_subscriber::layer::Context<'_, S>,
    ) {
        if *event.metadata().level() != tracing::Level::ERROR {
            return;
        }
        let mut fields = Fields(String::new());
        event.record(&mut fields);
        record_error(format!(
            "{} {}:{}",
            chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ"),
            event.metadata().target(),
            fields.0
        ));
    }
}

struct Fields(String);

impl tracing::field::Visit for Fields {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        use std::fmt::Write;
        let _ = if field.name() == "message" {
            write!(self.0, " {value:?}")
        } else {
            write!(self.0, " {}={value:?}", field.name())
        };
    }
}

pub const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

fn accept_request_id(value: &HeaderValue) -> bool {
    let s = value.as_bytes();
    !s.is_empty()
        && s.len() <= 128
        && s.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

/// A fresh request id: random from the thread's generator, no system call per request.
fn new_request_id() -> HeaderValue {
    let mut text = [0u8; uuid::fmt::Hyphenated::LENGTH];
    let id = uuid::Builder::from_random_bytes(rand::random())
        .into_uuid()
        .hyphenated()
        .encode_lower(&mut text)
        .as_bytes();
    HeaderValue::from_bytes(id).unwrap_or_else(|_| HeaderValue::from_static("-"))
}

/// Everything every listener does around every request, as one layer (each layer of
/// middleware costs a boxed future and an indirect call per request): the request id, the
/// span and the access log line; on the way out, the `X-RateLimit-*` headers of the
/// tightest limit applied, the security headers and the listener's `marks` (set where the
/// response has none of its own). The span names the matched route pattern, never the
/// path: paths carry interview and KYC tokens.
pub async fn around(
    service: &'static str,
    node: Arc<str>,
    marks: Rc<[(HeaderName, HeaderValue)]>,
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    // A sane id the caller sent is kept (sharing the request's bytes), else one is made.
    let id = req
        .headers()
        .get(&REQUEST_ID)
        .filter(|v| accept_request_id(v))
        .cloned()
        .unwrap_or_else(new_request_id);
    let matched = super::http::matched_route(req.request());
    let route = matched.as_deref().unwrap_or(super::metrics::UNMATCHED);
    let method = req.method().clone();
    let span = tracing::info_span!(
        "request",
        service,
        request_id = id.to_str().unwrap_or_default(),
        method = %method,
        route,
        node = &*node,
        otel.name = tracing::field::Empty,
    );
    super::traces::request(&span, &method, route, req.headers());
    let started = std::time::Instant::now();
    async move {
        let mut res = next.call(req).await?;
        if rate_limit_headers(&mut res) == Some(false) {
            super::metrics::rate_limited(service, matched.as_deref());
        }
        let h = res.headers_mut();
        super::http::security_headers(h);
        h.insert(REQUEST_ID, id);
        for (name, value) in marks.iter() {
            if !h.contains_key(name) {
                h.insert(name.clone(), value.clone());
            }
        }
        let status = res.status().as_u16();
        let took = started.elapsed();
        super::metrics::http_request(service, &method, matched.as_deref(), status, took);
        let latency_ms = took.as_secs_f64() * 1000.0;
        if status >= 500 {
            tracing::error!(status, latency_ms, "request failed");
        } else {
            tracing::info!(status, latency_ms, "request");
        }
        Ok(res)
    }
    .instrument(span)
    .await
}

/// Writes `X-RateLimit-*` (and `Retry-After` on 429) from the tightest limit applied; whether
/// it allowed the request (None: no limit applied).
fn rate_limit_headers<B>(res: &mut ServiceResponse<B>) -> Option<bool> {
    let applied = res.request().extensions().get::<AppliedLimit>().copied();
    let AppliedLimit(d) = applied?;
    let clock = res.request().app_data::<web::Data<SharedClock>>().cloned();
    let h = res.headers_mut();
    h.insert(HeaderName::from_static("x-ratelimit-limit"), d.limit.into());
    h.insert(
        HeaderName::from_static("x-ratelimit-remaining"),
        d.remaining.into(),
    );
    h.insert(HeaderName::from_static("x-ratelimit-reset"), d.reset.into());
    if !d.allowed {
        let now = clock.map(|c| c.now()).unwrap_or_else(chrono::Utc::now);
        h.insert(
            actix_web::http::header::RETRY_AFTER,
            d.retry_after_secs(now).into(),
        );
    }
    Some(d.allowed)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_error_ring_keeps_the_newest_lines() {
        for n in 0..(super::RECENT_ERRORS + 5) {
            super::record_error(format!("line {n}"));
        }
        let kept = super::recent_errors();
        assert_eq!(kept.len(), super::RECENT_ERRORS);
        assert_eq!(kept.last().map(String::as_str), Some("line 54"));
    }
}
