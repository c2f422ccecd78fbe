//! Version negotiation by media type: a client may name the interface version it speaks
//! with `Accept: application/vnd.service.v<N>+json`. A service that speaks version `V` takes
//! requests without `Accept`, or with one that allows JSON in any form it can answer; one
//! that asks only for another version gets a 406 saying which version is served.

use super::error::{ApiError, Kind};
use super::http::pass_unless;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::ACCEPT;
use actix_web::middleware::Next;

const VENDOR_PREFIX: &str = "application/vnd.service.v";
const VENDOR_SUFFIX: &str = "+json";

/// The version a media range names (`application/vnd.service.v2+json` → 2), if it is one.
fn vendor_version(range: &str) -> Option<&str> {
    range
        .strip_prefix(VENDOR_PREFIX)
        .and_then(|r| r.strip_suffix(VENDOR_SUFFIX))
}

/// Refused when every media range of `accept` is a vendor version other than `version`;
/// ranges of other types are left to the handler (every answer here is JSON).
pub fn check_accept(accept: &str, version: u32) -> Result<(), ApiError> {
    let ranges: Vec<String> = accept
        .split(',')
        .map(|r| {
            r.split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        })
        .filter(|r| !r.is_empty())
        .collect();
    let wanted = version.to_string();
    let asked: Vec<&str> = ranges.iter().filter_map(|r| vendor_version(r)).collect();
    let only_versions = !asked.is_empty() && asked.len() == ranges.len();
    if only_versions && !asked.contains(&wanted.as_str()) {
        return Err(ApiError::new(
            Kind::NotAcceptable,
            format!(
                "API version {} is not available; this service serves version {version} \
                 (Accept: {VENDOR_PREFIX}{version}{VENDOR_SUFFIX})",
                asked.join(", ")
            ),
        ));
    }
    Ok(())
}

/// Middleware of a service speaking interface version `V`.
pub async fn require_version<const V: u32>(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let accept = req
        .headers()
        .get(ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let refused = check_accept(accept, V).err();
    pass_unless(req, next, refused).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_request_for_other_versions_alone_is_refused() {
        for ok in [
            "",
            "application/json",
            "*/*",
            "application/vnd.service.v1+json",
            "application/vnd.service.v2+json, application/json;q=0.5",
            "application/vnd.service.v2+json, application/vnd.service.v1+json",
            "text/html",
        ] {
            assert!(check_accept(ok, 1).is_ok(), "{ok}");
        }
        let e = check_accept("application/vnd.service.v2+json", 1).expect_err("406");
        assert_eq!(e.kind(), Kind::NotAcceptable);
        assert!(e.message().contains("version 1"), "{}", e.message());
    }
}
