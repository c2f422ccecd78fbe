//! Trace export (`[telemetry] otlp_endpoint`): the `tracing` spans of requests, database
//! calls (SeaORM's `sea_orm.*` spans) and outbound HTTP calls, sent over OTLP/HTTP. W3C
//! `traceparent` is read from incoming requests and written onto outbound ones. Off, none of
//! this runs: no header is read, none is written.

use super::config::TelemetrySettings;
use opentelemetry::propagation::{Extractor, TextMapPropagator};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::WithExportConfig;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use std::sync::atomic::{AtomicBool, Ordering};
use tracing_opentelemetry::OpenTelemetrySpanExt;

static EXPORTING: AtomicBool = AtomicBool::new(false);

/// What gets exported: this crate's spans and SeaORM's (database calls), nothing else.
pub fn filter() -> tracing_subscriber::filter::Targets {
    use tracing::Level;
    tracing_subscriber::filter::Targets::new()
        .with_target("switchboard", Level::INFO)
        .with_target("sea_orm", Level::INFO)
}

/// The exporting provider and its `tracing` layer, when an endpoint is configured.
pub fn start(
    settings: &TelemetrySettings,
) -> Result<Option<SdkTracerProvider>, opentelemetry_otlp::ExporterBuildError> {
    let Some(endpoint) = settings.otlp_endpoint() else {
        return Ok(None);
    };
    let endpoint = endpoint.trim_end_matches('/');
    let url = if endpoint.ends_with("/v1/traces") {
        endpoint.to_owned()
    } else {
        format!("{endpoint}/v1/traces")
    };
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_endpoint(url)
        .build()?;
    let resource = opentelemetry_sdk::Resource::builder()
        .with_service_name(settings.service_name.clone())
        .build();
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(resource)
        .build();
    EXPORTING.store(true, Ordering::Relaxed);
    Ok(Some(provider))
}

pub fn layer<S>(provider: &SdkTracerProvider) -> impl tracing_subscriber::Layer<S>
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    tracing_opentelemetry::layer().with_tracer(provider.tracer("switchboard"))
}

struct Headers<'a>(&'a actix_web::http::header::HeaderMap);

impl Extractor for Headers<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|v| v.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(|k| k.as_str()).collect()
    }
}

/// Names a request's `span` as OpenTelemetry expects ("GET /api/v1/messages/{id}") and makes
/// it part of the trace the caller's `traceparent` names, if it sent one.
pub fn request(
    span: &tracing::Span,
    method: &actix_web::http::Method,
    route: &str,
    headers: &actix_web::http::header::HeaderMap,
) {
    if !EXPORTING.load(Ordering::Relaxed) {
        return;
    }
    span.record("otel.name", format!("{method} {route}"));
    if headers.contains_key("traceparent") {
        let parent = TraceContextPropagator::new().extract(&Headers(headers));
        // Refused only when the span is not recorded at all; then there is nothing to join.
        let _ = span.set_parent(parent);
    }
}

/// The span of one outbound HTTP call, and the `traceparent` (and `tracestate`) that carry
/// it to the receiver.
pub fn outbound(method: &'static str, url: &url::Url) -> (tracing::Span, Vec<(String, String)>) {
    let span = tracing::info_span!(
        "http.client",
        otel.kind = "client",
        otel.name = method,
        http.request.method = method,
        server.address = url.host_str().unwrap_or_default(),
    );
    if !EXPORTING.load(Ordering::Relaxed) {
        return (span, Vec::new());
    }
    let mut headers = std::collections::HashMap::new();
    TraceContextPropagator::new().inject_context(&span.context(), &mut headers);
    (span, headers.into_iter().collect())
}
