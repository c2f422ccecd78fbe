//! The webhook actors' side effects: messaging's signature headers over the shared
//! public-only, no-redirect transport (`core::webhook_transport`), the server's clock, and
//! the retry schedule from the settings.

use super::super::settings::MessagingSettings;
use crate::core::clock::SharedClock;
use crate::core::secrets::hmac_sha256_hex;
use crate::core::webhook_transport::HttpTransport;
use chrono::{DateTime, Utc};
use std::sync::Arc;
use std::time::Duration;
use switchboard_actors::{
    OutgoingDelivery, RetryPolicy, TransportResponse, WebhookClock, WebhookTransport,
};

pub struct Clock(pub SharedClock);

impl WebhookClock for Clock {
    fn now(&self) -> DateTime<Utc> {
        self.0.now()
    }

    fn sleep_until(
        &self,
        at: DateTime<Utc>,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
        self.0.sleep_until(at)
    }
}

/// Messaging's deliveries over the shared transport.
pub struct Transport(pub Arc<HttpTransport>);

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

impl WebhookTransport for Transport {
    fn deliver(
        &self,
        d: OutgoingDelivery,
        now: DateTime<Utc>,
    ) -> switchboard_actors::webhook::TransportFuture {
        let http = self.0.clone();
        Box::pin(async move {
            let ts = now.timestamp();
            let (v1, v2) = signatures(&d.signing_key, &d.body, ts);
            let headers = [
                ("X-Service-Signature", v1),
                ("X-Service-Signature-V2", v2),
                ("X-Service-Timestamp", ts.to_string()),
                ("X-Service-Event", d.event_type.clone()),
                ("X-Service-Delivery-ID", d.delivery_id.to_string()),
            ];
            let res = http.post(&d.url, &headers, d.body, d.timeout, now).await;
            let res = res.map_err(|e| e.to_string())?;
            Ok(TransportResponse {
                status: res.status,
                body: res.body,
                retry_after: res.retry_after,
            })
        })
    }
}

/// The webhook actors' schedule, from `[services.messaging.webhooks]`.
pub fn retry_policy(s: &MessagingSettings) -> RetryPolicy {
    let w = &s.webhooks;
    RetryPolicy {
        deactivate_after: w.deactivate_after.max(1),
        idle_stop: Duration::from_secs(w.idle_stop_secs.max(1)),
        ..w.webhook.policy()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_are_hmac_of_body_and_timestamped_body() {
        let key = crate::core::secrets::sha256_hex(b"secret");
        let (v1, v2) = signatures(&key, "{}", 10);
        assert_eq!(v1, hmac_sha256_hex(key.as_bytes(), b"{}"));
        assert_eq!(v2, hmac_sha256_hex(key.as_bytes(), b"10.{}"));
    }
}
