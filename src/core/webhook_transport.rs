//! The one HTTP transport for webhooks to customer-supplied URLs (messaging's endpoints and
//! interview completion notifications): redirects are never followed, every attempt checks
//! that the URL resolves to public addresses only, and the connection's own lookup keeps
//! public addresses only (so a name cannot turn inward between the check and the connect).
//! Callers add their own signature headers.

use crate::core::metrics::Delivery;
use crate::core::net_error::describe_http;
use crate::core::outbound_url::{check_public, parse_http_url};
use crate::core::tls::ExtraRoots;
use chrono::{DateTime, Duration, Utc};
use tracing::Instrument;

pub struct HttpTransport {
    pub http: reqwest::Client,
    allow_private: bool,
    /// Whose webhooks these are, for the deliveries metric.
    service: &'static str,
}

/// The receiver's answer: status, the first bytes of the body, its Retry-After.
#[derive(Debug, Clone)]
pub struct PostResponse {
    pub status: u16,
    pub body: String,
    pub retry_after: Option<Duration>,
}

#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum PostError {
    /// The URL is not one this server calls (malformed, unresolvable, internal): retrying
    /// cannot help unless DNS changes.
    #[error("{0}")]
    Refused(String),
    /// The request failed or timed out.
    #[error("{0}")]
    Failed(String),
}

/// Only the first bytes of an answer are read.
const MAX_READ: usize = 64 * 1024;

impl HttpTransport {
    pub fn new(
        service: &'static str,
        allow_private: bool,
        roots: &ExtraRoots,
    ) -> Result<Self, reqwest::Error> {
        Ok(Self {
            http: super::download::outbound_client(
                allow_private,
                "Switchboard-Webhooks/1.0",
                None,
                roots,
            )?,
            allow_private,
            service,
        })
    }

    /// POSTs `body` as JSON with `headers` to `url`; `now` reads Retry-After dates.
    pub async fn post(
        &self,
        url: &str,
        headers: &[(&str, String)],
        body: String,
        timeout: std::time::Duration,
        now: DateTime<Utc>,
    ) -> Result<PostResponse, PostError> {
        let res = self.attempt(url, headers, body, timeout, now).await;
        // Here, so every service's webhooks (messaging's and interview's) count alike.
        super::metrics::webhook_delivery(self.service, outcome(&res));
        res
    }

    async fn attempt(
        &self,
        url: &str,
        headers: &[(&str, String)],
        body: String,
        timeout: std::time::Duration,
        now: DateTime<Utc>,
    ) -> Result<PostResponse, PostError> {
        let url = parse_http_url(url).map_err(|e| PostError::Refused(e.to_string()))?;
        // Checked at every attempt, so a DNS change cannot turn a webhook inward.
        check_public(&url, self.allow_private)
            .await
            .map_err(|e| PostError::Refused(e.to_string()))?;
        let (span, trace) = super::traces::outbound("POST", &url);
        let mut req = self
            .http
            .post(url)
            .timeout(timeout)
            .header("Content-Type", "application/json");
        for (name, value) in headers {
            req = req.header(*name, value.as_str());
        }
        for (name, value) in trace {
            req = req.header(name, value);
        }
        let mut res = req
            .body(body)
            .send()
            .instrument(span)
            .await
            .map_err(|e| PostError::Failed(describe_http(&e, timeout)))?;
        let status = res.status().as_u16();
        let retry_after = res
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| retry_after(v, now));
        let mut body = Vec::new();
        while let Ok(Some(chunk)) = res.chunk().await {
            body.extend_from_slice(&chunk);
            if body.len() >= MAX_READ {
                break;
            }
        }
        Ok(PostResponse {
            status,
            body: String::from_utf8_lossy(&body).into_owned(),
            retry_after,
        })
    }
}

/// How one attempt ended, as the metrics count it.
fn outcome(result: &Result<PostResponse, PostError>) -> Delivery {
    match result {
        Ok(r) if (200..300).contains(&r.status) => Delivery::Delivered,
        Ok(_) => Delivery::Rejected,
        Err(PostError::Refused(_)) => Delivery::Refused,
        Err(PostError::Failed(why)) if why.starts_with("timed out") => Delivery::TimedOut,
        Err(PostError::Failed(_)) => Delivery::Failed,
    }
}

/// Longest Retry-After read at all (the schedule caps it further); a receiver's huge number
/// must not overflow the duration.
const RETRY_AFTER_CEILING_SECS: u64 = 7 * 24 * 3600;

/// Retry-After as seconds or an HTTP date.
fn retry_after(value: &str, now: DateTime<Utc>) -> Option<Duration> {
    let v = value.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::seconds(secs.min(RETRY_AFTER_CEILING_SECS) as i64));
    }
    DateTime::parse_from_rfc2822(v)
        .ok()
        .map(|t| (t.with_timezone(&Utc) - now).max(Duration::zero()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_forms() {
        let now = DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(retry_after("120", now), Some(Duration::seconds(120)));
        // A number past any duration is capped, not a panic.
        assert_eq!(
            retry_after("99999999999999999999999", now),
            None,
            "past u64: not a number of seconds, nor a date"
        );
        assert_eq!(
            retry_after("99999999999999999", now),
            Some(Duration::seconds(RETRY_AFTER_CEILING_SECS as i64))
        );
        assert_eq!(retry_after("-5", now), None);
        assert_eq!(
            retry_after("Thu, 01 Jan 2026 00:10:00 GMT", now),
            Some(Duration::seconds(600))
        );
        assert_eq!(retry_after("soon", now), None);
    }

    #[actix_web::test]
    async fn the_connection_lookup_refuses_inward_names_unless_private_urls_are_allowed() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move {
            while let Ok((mut s, _)) = listener.accept().await {
                let mut buf = [0u8; 1024];
                let _ = s.read(&mut buf).await;
                let _ = s
                    .write_all(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n")
                    .await;
            }
        });
        // By name, so the client's own lookup decides (check_public is not involved here).
        let url = format!("http://localhost:{port}/hook");
        let timeout = std::time::Duration::from_secs(5);
        let open = HttpTransport::new("test", true, &ExtraRoots::default()).unwrap();
        let res = open.http.post(&url).timeout(timeout).send().await.unwrap();
        assert_eq!(res.status(), 204);
        let guarded = HttpTransport::new("test", false, &ExtraRoots::default()).unwrap();
        let err = guarded
            .http
            .post(&url)
            .timeout(timeout)
            .send()
            .await
            .unwrap_err();
        assert!(err.is_connect(), "{err:?}");
        // Through `post`, the address check refuses it before any connection.
        let refused = guarded
            .post(&url, &[], "{}".into(), timeout, Utc::now())
            .await
            .unwrap_err();
        assert!(matches!(refused, PostError::Refused(_)), "{refused:?}");
    }
}
