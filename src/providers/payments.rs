//! Payments port: a checkout session the payer completes on the provider's page. The
//! built-in sandbox (the default) has the advertising service serve that page itself; the
//! Stripe adapter speaks the Checkout Sessions API (`POST /v1/checkout/sessions`). Either
//! way the outcome comes back as a webhook signed as Stripe signs (`signature`).

use super::ProviderError;
use async_trait::async_trait;
use serde::Deserialize;
use std::sync::Arc;
use uuid::Uuid;

/// `[providers.payments]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct PaymentsSettings {
    /// `sandbox` (built in: the service's own checkout page) or `stripe`.
    pub provider: String,
    /// Stripe: the API's base URL. Sandbox: where the checkout page is reached (empty:
    /// the address the create-checkout request came to).
    pub base_url: String,
    /// Stripe's secret API key (`sk_…`).
    pub secret_key: String,
    /// The webhook endpoint's signing secret (`whsec_…`); the sandbox signs with it too.
    pub webhook_secret: String,
}

/// The sandbox's signing secret: refused by the start-up guard beyond loopback.
pub const DEV_WEBHOOK_SECRET: &str = "dev-payments-webhook-secret";
pub const STRIPE_API: &str = "https://api.stripe.com";

impl Default for PaymentsSettings {
    fn default() -> Self {
        Self {
            provider: "sandbox".into(),
            base_url: String::new(),
            secret_key: String::new(),
            webhook_secret: DEV_WEBHOOK_SECRET.into(),
        }
    }
}

impl PaymentsSettings {
    /// Settings the start-up guard refuses beyond loopback, each naming its key: the
    /// sandbox funds ads with no money, and the development secret lets anyone sign events.
    pub fn unsafe_keys(&self) -> Vec<String> {
        let mut bad: Vec<String> = crate::core::config::weak_secret(
            "providers.payments.webhook_secret",
            &self.webhook_secret,
        )
        .into_iter()
        .collect();
        if self.provider != "stripe" {
            bad.push("providers.payments.provider is the sandbox (its Pay button funds ads without money)".into());
        } else if self.secret_key.trim().is_empty() {
            bad.push("providers.payments.secret_key is empty".into());
        }
        bad
    }
}

/// A checkout to open: one line item of `amount_cents`.
#[derive(Debug, Clone)]
pub struct CheckoutRequest<'a> {
    /// Our payment's id (the session's `client_reference_id` and `metadata[payment_id]`).
    pub payment_id: Uuid,
    pub amount_cents: i64,
    /// ISO 4217, lowercase.
    pub currency: &'a str,
    /// What the payer sees on the line.
    pub product_name: &'a str,
    pub success_url: &'a str,
    pub cancel_url: &'a str,
    /// Where this service was reached (`http://host:port`): the sandbox's page lives there
    /// when no `base_url` is set.
    pub origin: &'a str,
}

/// An open checkout session: its id and the page the payer goes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckoutSession {
    pub id: String,
    pub url: String,
}

#[async_trait]
pub trait PaymentsProvider: Send + Sync + 'static {
    /// `sandbox` or `stripe` (kept on the payment).
    fn name(&self) -> &'static str;
    async fn create_checkout(
        &self,
        r: &CheckoutRequest<'_>,
    ) -> Result<CheckoutSession, ProviderError>;
}

pub fn from_settings(s: &PaymentsSettings, http: reqwest::Client) -> Arc<dyn PaymentsProvider> {
    match s.provider.as_str() {
        "stripe" => Arc::new(StripePayments {
            http,
            base_url: if s.base_url.trim().is_empty() {
                STRIPE_API.into()
            } else {
                s.base_url.trim_end_matches('/').to_owned()
            },
            secret_key: s.secret_key.clone(),
        }),
        _ => Arc::new(SandboxPayments {
            base_url: s.base_url.trim_end_matches('/').to_owned(),
        }),
    }
}

/// Where the sandbox serves a session's checkout page, under the service's root.
pub const SANDBOX_PATH: &str = "/api/campaign-payments/sandbox";

/// The built-in provider: sessions are ids this process makes; the page is the service's.
pub struct SandboxPayments {
    pub base_url: String,
}

#[async_trait]
impl PaymentsProvider for SandboxPayments {
    fn name(&self) -> &'static str {
        "sandbox"
    }

    async fn create_checkout(
        &self,
        r: &CheckoutRequest<'_>,
    ) -> Result<CheckoutSession, ProviderError> {
        let id = format!("cs_sandbox_{}", crate::core::secrets::random_hex(16));
        let base = if self.base_url.is_empty() {
            r.origin
        } else {
            &self.base_url
        };
        Ok(CheckoutSession {
            url: format!("{base}{SANDBOX_PATH}/{id}"),
            id,
        })
    }
}

/// Stripe's Checkout Sessions API (or anything that speaks it).
pub struct StripePayments {
    http: reqwest::Client,
    base_url: String,
    secret_key: String,
}

#[derive(Deserialize)]
struct StripeSession {
    id: String,
    url: Option<String>,
}

#[derive(Deserialize)]
struct StripeErrorBody {
    error: StripeError,
}

#[derive(Deserialize)]
struct StripeError {
    message: Option<String>,
}

#[async_trait]
impl PaymentsProvider for StripePayments {
    fn name(&self) -> &'static str {
        "stripe"
    }

    async fn create_checkout(
        &self,
        r: &CheckoutRequest<'_>,
    ) -> Result<CheckoutSession, ProviderError> {
        let payment_id = r.payment_id.to_string();
        let amount = r.amount_cents.to_string();
        let form: [(&str, &str); 10] = [
            ("mode", "payment"),
            ("line_items[0][quantity]", "1"),
            ("line_items[0][price_data][currency]", r.currency),
            ("line_items[0][price_data][unit_amount]", &amount),
            (
                "line_items[0][price_data][product_data][name]",
                r.product_name,
            ),
            ("success_url", r.success_url),
            ("cancel_url", r.cancel_url),
            ("client_reference_id", &payment_id),
            ("metadata[payment_id]", &payment_id),
            ("payment_intent_data[metadata][payment_id]", &payment_id),
        ];
        let res = self
            .http
            .post(format!("{}/v1/checkout/sessions", self.base_url))
            .bearer_auth(&self.secret_key)
            // A retried create (our timeout, their 5xx) opens no second session.
            .header("Idempotency-Key", format!("checkout-{payment_id}"))
            .form(&form)
            .send()
            .await
            .map_err(|e| ProviderError::Unreachable(super::http_failure(&e)))?;
        let status = res.status();
        let body = res
            .bytes()
            .await
            .map_err(|e| ProviderError::Unreachable(e.to_string()))?;
        if !status.is_success() {
            let message = serde_json::from_slice::<StripeErrorBody>(&body)
                .ok()
                .and_then(|b| b.error.message)
                .unwrap_or_else(|| String::from_utf8_lossy(&body).chars().take(200).collect());
            return Err(ProviderError::Rejected {
                status: status.as_u16(),
                message,
            });
        }
        let session: StripeSession =
            serde_json::from_slice(&body).map_err(|e| ProviderError::Unknown(e.to_string()))?;
        let url = session
            .url
            .ok_or_else(|| ProviderError::Unknown("the session has no url".into()))?;
        Ok(CheckoutSession {
            id: session.id,
            url,
        })
    }
}

/// Webhook signatures as Stripe makes them: `Stripe-Signature: t=<unix>,v1=<hex>` where the
/// hex is HMAC-SHA256(secret, "<t>.<raw body>"); a header may carry several `v1` (while a
/// secret is rolled) and other schemes, which are ignored.
pub mod signature {
    use crate::core::secrets::{constant_time_eq, hmac_sha256, hmac_sha256_hex};

    /// Stripe's default tolerance.
    pub const TOLERANCE_SECS: i64 = 300;

    /// The header for `body` signed at `t`.
    pub fn header(secret: &str, t: i64, body: &[u8]) -> String {
        let mut signed = format!("{t}.").into_bytes();
        signed.extend_from_slice(body);
        format!("t={t},v1={}", hmac_sha256_hex(secret.as_bytes(), &signed))
    }

    #[derive(Debug, PartialEq, Eq, thiserror::Error)]
    pub enum Invalid {
        #[error("missing Stripe-Signature header")]
        Missing,
        #[error("Stripe-Signature has no timestamp or no v1 signature")]
        Malformed,
        #[error("Stripe-Signature timestamp is outside the tolerance")]
        Stale,
        #[error("no v1 signature matches the payload")]
        Mismatch,
    }

    /// Checks `header` against `body` at `now` (unix seconds).
    pub fn verify(
        header: Option<&str>,
        body: &[u8],
        secret: &str,
        now: i64,
    ) -> Result<(), Invalid> {
        let header = header.ok_or(Invalid::Missing)?;
        let mut t = None;
        let mut v1 = Vec::new();
        for part in header.split(',') {
            match part.trim().split_once('=') {
                Some(("t", v)) => t = v.parse::<i64>().ok(),
                Some(("v1", v)) => v1.extend(hex::decode(v).ok()),
                _ => {}
            }
        }
        let t = t.ok_or(Invalid::Malformed)?;
        if v1.is_empty() {
            return Err(Invalid::Malformed);
        }
        let mut signed = format!("{t}.").into_bytes();
        signed.extend_from_slice(body);
        let expected = hmac_sha256(secret.as_bytes(), &signed);
        // Every candidate is compared, so the time taken tells nothing of which matched.
        let matched = v1
            .iter()
            .fold(false, |any, sig| constant_time_eq(sig, &expected) | any);
        if !matched {
            return Err(Invalid::Mismatch);
        }
        if (now - t).abs() > TOLERANCE_SECS {
            return Err(Invalid::Stale);
        }
        Ok(())
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn signs_and_verifies_like_stripe() {
            let body = br#"{"id":"evt_1"}"#;
            let h = header("whsec_test", 1_700_000_000, body);
            assert!(h.starts_with("t=1700000000,v1="));
            assert_eq!(verify(Some(&h), body, "whsec_test", 1_700_000_100), Ok(()));
            let rolled = format!("{h},v1=00ff,v0=abc");
            assert_eq!(
                verify(Some(&rolled), body, "whsec_test", 1_700_000_000),
                Ok(())
            );
            assert_eq!(
                verify(Some(&h), body, "whsec_other", 1_700_000_000),
                Err(Invalid::Mismatch)
            );
            assert_eq!(
                verify(Some(&h), body, "whsec_test", 1_700_000_301),
                Err(Invalid::Stale)
            );
            assert_eq!(
                verify(Some(&h), b"{}", "whsec_test", 1_700_000_000),
                Err(Invalid::Mismatch)
            );
            assert_eq!(verify(Some("v1=ab"), body, "s", 0), Err(Invalid::Malformed));
            assert_eq!(verify(None, body, "s", 0), Err(Invalid::Missing));
        }
    }
}
