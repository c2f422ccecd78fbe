//! The webhook actors' side effects, implemented with the server's HTTP client and clock:
//! signing, the address policy, the timeout and Retry-After parsing.

use crate::core::clock::SharedClock;
use crate::core::outbound_url::{check_public, parse_http_url, PublicOnlyResolver};
use crate::core::secrets::hmac_sha256_hex;
use chrono::{DateTime, Duration, Utc};
use switchboard_actors::{OutgoingDelivery, TransportResponse, WebhookClock, WebhookTransport};

pub struct Clock(pub SharedClock);

impl WebhookClock for Clock {
    fn now(&self) -> DateTime<Utc> {
        self.0.now()
    }
}

pub struct HttpTransport {
    pub http: reqwest::Client,
    pub allow_private: bool,
}

impl HttpTransport {
    pub fn new(allow_private: bool) -> Result<Self, reqwest::Error> {
        // Redirects are not followed: a redirect could point at an internal address.
        let mut builder = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .user_agent("Switchboard-Webhooks/1.0");
        if !allow_private {
            // The connection's own lookup keeps public addresses only, so a name cannot turn
            // inward between `check_public` and the connect (DNS rebinding).
            builder = builder.dns_resolver(PublicOnlyResolver);
        }
        Ok(Self {
            http: builder.build()?,
            allow_private,
        })
    }
}

/// The signature headers of a delivery: v1 over the body, v2 over "{timestamp}.{body}";
/// both hex HMAC-SHA256 keyed with the stored SHA-256 hex digest of the secret.
pub fn signatures(signing_key: &str, body: &str, timestamp: i64) -> (String, String) {
    let v1 = hmac_sha256_hex(signing_key.as_bytes(), body.as_bytes());
    let v2 = hmac_sha256_hex(
        signing_key.as_bytes(),
        format!("{timestamp}.{body}").as_bytes(),
    );
    (v1, v2)
}

/// Retry-After as seconds or an HTTP date.
fn retry_after(value: &str, now: DateTime<Utc>) -> Option<Duration> {
    let v = value.trim();
    if let Ok(secs) = v.parse::<i64>() {
        return (secs >= 0).then(|| Duration::seconds(secs));
    }
    DateTime::parse_from_rfc2822(v)
        .ok()
        .map(|t| (t.with_timezone(&Utc) - now).max(Duration::zero()))
}

const MAX_READ: usize = 64 * 1024;

impl WebhookTransport for HttpTransport {
    fn deliver(
        &self,
        d: OutgoingDelivery,
        now: DateTime<Utc>,
    ) -> switchboard_actors::webhook::TransportFuture {
        let http = self.http.clone();
        let allow_private = self.allow_private;
        Box::pin(async move {
            let url = parse_http_url(&d.url).map_err(|e| e.to_string())?;
            // Checked at every attempt, so a DNS change cannot turn a webhook inward.
            check_public(&url, allow_private)
                .await
                .map_err(|e| e.to_string())?;
            let ts = now.timestamp();
            let (v1, v2) = signatures(&d.signing_key, &d.body, ts);
            let res = http
                .post(url)
                .timeout(d.timeout)
                .header("Content-Type", "application/json")
                .header("X-Service-Signature", v1)
                .header("X-Service-Signature-V2", v2)
                .header("X-Service-Timestamp", ts.to_string())
                .header("X-Service-Event", d.event_type.as_str())
                .header("X-Service-Delivery-ID", d.delivery_id.to_string())
                .body(d.body)
                .send()
                .await
                .map_err(|e| {
                    if e.is_timeout() {
                        "timed out".to_owned()
                    } else {
                        format!("request failed: {}", e.without_url())
                    }
                })?;
            let status = res.status().as_u16();
            let retry_after = res
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| retry_after(v, now));
            // Only the first bytes of the answer are kept (and later cut to 1000 characters).
            let mut body = Vec::new();
            let mut res = res;
            while let Ok(Some(chunk)) = res.chunk().await {
                body.extend_from_slice(&chunk);
                if body.len() >= MAX_READ {
                    break;
                }
            }
            Ok(TransportResponse {
                status,
                body: String::from_utf8_lossy(&body).into_owned(),
                retry_after,
            })
        })
    }
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
        let open = HttpTransport::new(true).unwrap();
        let res = open.http.post(&url).timeout(timeout).send().await.unwrap();
        assert_eq!(res.status(), 204);
        let guarded = HttpTransport::new(false).unwrap();
        let err = guarded
            .http
            .post(&url)
            .timeout(timeout)
            .send()
            .await
            .unwrap_err();
        assert!(err.is_connect(), "{err:?}");
    }

    #[test]
    fn signatures_are_hmac_of_body_and_timestamped_body() {
        let key = crate::core::secrets::sha256_hex(b"secret");
        let (v1, v2) = signatures(&key, "{}", 10);
        assert_eq!(v1, hmac_sha256_hex(key.as_bytes(), b"{}"));
        assert_eq!(v2, hmac_sha256_hex(key.as_bytes(), b"10.{}"));
    }
}
