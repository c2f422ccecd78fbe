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
use tracing::Instrument;
use tracing_subscriber::EnvFilter;

pub fn init() {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn,sea_orm=warn,actix_server=warn"));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).try_init();
}

pub const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

#[derive(Debug, Clone)]
pub struct RequestId(pub String);

fn accept_request_id(value: &HeaderValue) -> Option<String> {
    let s = value.to_str().ok()?;
    let ok = !s.is_empty()
        && s.len() <= 128
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    ok.then(|| s.to_owned())
}

/// Request id, span and access log line for every request. The span names the matched
/// route pattern, never the path: paths carry interview and KYC tokens.
pub async fn request_span(
    service: &'static str,
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let id = req
        .headers()
        .get(&REQUEST_ID)
        .and_then(accept_request_id)
        // Random from the thread's generator: no system call per request.
        .unwrap_or_else(|| {
            let mut text = [0u8; uuid::fmt::Hyphenated::LENGTH];
            uuid::Builder::from_random_bytes(rand::random())
                .into_uuid()
                .hyphenated()
                .encode_lower(&mut text)
                .to_owned()
        });
    req.extensions_mut().insert(RequestId(id.clone()));
    let route = super::http::matched_route(req.request());
    let route = route.as_deref().unwrap_or("<unmatched>");
    let span =
        tracing::info_span!("request", service, request_id = %id, method = %req.method(), route);
    let started = std::time::Instant::now();
    async move {
        let mut res = next.call(req).await?;
        if let Ok(v) = HeaderValue::from_str(&id) {
            res.headers_mut().insert(REQUEST_ID, v);
        }
        let status = res.status().as_u16();
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        if status >= 500 {
            tracing::error!(status, ms, "request failed");
        } else {
            tracing::info!(status, ms, "request");
        }
        Ok(res)
    }
    .instrument(span)
    .await
}

/// Writes `X-RateLimit-*` (and `Retry-After` on 429) from the tightest limit applied.
pub async fn rate_limit_headers(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let clock = req.app_data::<web::Data<SharedClock>>().cloned();
    let mut res = next.call(req).await?;
    let applied = res.request().extensions().get::<AppliedLimit>().copied();
    if let Some(AppliedLimit(d)) = applied {
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
    }
    Ok(res)
}
