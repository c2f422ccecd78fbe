//! Cross-origin requests from browsers (`[server] cors_allowed_origins`), the same for every
//! listener: a preflight from an allowed origin is answered, one from any other origin is
//! refused in the service's envelope, and actual requests from other origins still run
//! (callers that are not browsers send what `Origin` they like) but carry no
//! `Access-Control-Allow-Origin`, so a browser keeps the answer from the page.

use super::error::ApiError;
use actix_cors::{Cors, CorsError};
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::Next;

/// The origin list entry that allows every origin.
pub const ANY_ORIGIN: &str = "*";

/// Response headers a page may read besides the CORS-safelisted ones: limits, request ids,
/// the sandbox mark and download names.
const EXPOSED: [&str; 7] = [
    "retry-after",
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
    "x-ratelimit-reset",
    "x-request-id",
    "x-test-mode",
    "content-disposition",
];

/// `Some(problem)` when `origin` is neither `*` nor a bare origin (`scheme://host[:port]`,
/// nothing after it), which a browser's `Origin` could never equal.
pub fn invalid_origin(origin: &str) -> Option<String> {
    if origin == ANY_ORIGIN {
        return None;
    }
    let bare = url::Url::parse(origin)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .map(|u| u.origin().ascii_serialization());
    (bare.as_deref() != Some(origin)).then(|| {
        format!(
            "server.cors_allowed_origins: {origin:?} is not an origin such as \
             \"https://app.example.com\" (scheme, host, optional port, nothing after) or \"*\""
        )
    })
}

/// The CORS middleware for `origins` (checked by `CoreSettings::validate`; empty: no origin).
/// Requests carry a bearer token, not cookies, so credentials are not allowed.
pub fn middleware(origins: &[String], max_age_secs: usize) -> Cors {
    let cors = Cors::default()
        .allowed_methods([
            Method::GET,
            Method::POST,
            Method::PUT,
            Method::PATCH,
            Method::DELETE,
        ])
        .allow_any_header()
        .expose_headers(EXPOSED)
        .max_age(max_age_secs);
    if origins.iter().any(|o| o == ANY_ORIGIN) {
        return cors.allow_any_origin().send_wildcard();
    }
    origins
        .iter()
        .fold(cors, |cors, origin| cors.allowed_origin(origin))
}

/// Installed just outside [`middleware`]: its refusals (a preflight from an origin not
/// allowed, or asking for a method not allowed) become an [`ApiError`], so
/// `error::render` answers them in the service's envelope.
pub async fn refusals(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let res = next.call(req).await?;
    let refused = res
        .response()
        .error()
        .and_then(|e| e.as_error::<CorsError>())
        .map(|e| ApiError::forbidden(format!("cross-origin request refused: {e}")));
    Ok(match refused {
        Some(err) => res.error_response(err).map_into_right_body(),
        None => res.map_into_left_body(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_bare_origins_or_the_wildcard_are_accepted() {
        for ok in ["*", "https://app.example.com", "http://localhost:3000"] {
            assert_eq!(invalid_origin(ok), None, "{ok}");
        }
        for bad in [
            "app.example.com",
            "https://app.example.com/",
            "https://app.example.com/path",
            "ftp://example.com",
            "",
        ] {
            assert!(invalid_origin(bad).is_some(), "{bad}");
        }
    }
}
