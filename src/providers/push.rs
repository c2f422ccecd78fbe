//! Push notification port: the outbox sandbox by default, Firebase Cloud Messaging (HTTP v1)
//! for real devices.
//!
//! FCM authenticates with a short-lived OAuth2 access token that a Google service account
//! obtains by signing a JWT (RS256) and trading it at `token_uri` (the JWT bearer grant). The
//! token is kept until a minute before it expires, so one exchange serves about an hour of
//! sends.

use super::outbox::{Outbox, OutboxEntry};
use super::settings::PushProviderSettings;
use crate::core::clock::SharedClock;
use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;
use tokio::sync::Mutex;

/// The scope FCM's send endpoint requires.
const FCM_SCOPE: &str = "https://www.googleapis.com/auth/firebase.messaging";
/// Google's token endpoint, used when neither the settings nor the key file name one.
pub const DEFAULT_TOKEN_URI: &str = "https://oauth2.googleapis.com/token";
/// How long the signed JWT asks for (Google's maximum).
const ASSERTION_LIFETIME: Duration = Duration::hours(1);
/// An access token is replaced this long before it expires, so a send never carries one that
/// lapses on the way.
const REFRESH_MARGIN: Duration = Duration::seconds(60);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    Android,
    Ios,
}

impl Platform {
    /// `android` or `ios`, exactly as the wire spells them.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "android" => Some(Self::Android),
            "ios" => Some(Self::Ios),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Android => "android",
            Self::Ios => "ios",
        }
    }

    /// The key of FCM's per-platform block.
    fn fcm_block(self) -> &'static str {
        match self {
            Self::Android => "android",
            Self::Ios => "apns",
        }
    }
}

#[derive(Debug, Clone)]
pub struct PushMessage<'a> {
    pub device_token: &'a str,
    pub platform: Platform,
    pub title: &'a str,
    pub body: &'a str,
    /// Key-value pairs the app receives with the notification (FCM takes strings only).
    pub data: &'a BTreeMap<String, String>,
    /// Which service sends it (recorded in the outbox).
    pub service: &'a str,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushReceipt {
    /// FCM's message name (`projects/…/messages/…`) or the outbox's id.
    pub provider_message_id: String,
}

#[derive(Debug, thiserror::Error)]
pub enum PushError {
    /// The device token is no longer valid (the app was uninstalled or the token rotated):
    /// the caller deletes it; sending again cannot succeed.
    #[error("device token no longer registered")]
    TokenGone,
    /// Worth trying again later (throttled, provider down, unreachable); `retry_after` when
    /// the provider said how long to wait.
    #[error("push provider unavailable: {message}")]
    Retryable {
        message: String,
        retry_after: Option<std::time::Duration>,
    },
    /// The provider refused the message or our credentials; retrying will not help.
    #[error("push provider refused the message: {0}")]
    Permanent(String),
}

impl PushError {
    pub fn is_retryable(&self) -> bool {
        matches!(self, Self::Retryable { .. })
    }

    fn retryable(message: impl Into<String>) -> Self {
        Self::Retryable {
            message: message.into(),
            retry_after: None,
        }
    }
}

impl From<std::io::Error> for PushError {
    fn from(e: std::io::Error) -> Self {
        Self::retryable(format!("outbox write failed: {e}"))
    }
}

#[async_trait]
pub trait PushSender: Send + Sync + 'static {
    async fn send(&self, msg: &PushMessage<'_>) -> Result<PushReceipt, PushError>;
    fn is_sandbox(&self) -> bool {
        false
    }
}

/// `[providers.push]` is unusable (FCM chosen without credentials, or a key that does not
/// parse).
#[derive(Debug, thiserror::Error)]
#[error("[providers.push]: {0}")]
pub struct PushConfigError(String);

pub fn from_settings(
    s: &PushProviderSettings,
    outbox: Arc<Outbox>,
    clock: SharedClock,
    http: reqwest::Client,
) -> Result<Arc<dyn PushSender>, PushConfigError> {
    match s.provider.as_str() {
        "fcm" => Ok(Arc::new(Fcm::new(s, clock, http)?)),
        "outbox" => Ok(Arc::new(OutboxPush { outbox, clock })),
        other => Err(PushConfigError(format!(
            "unknown provider {other:?} (outbox or fcm)"
        ))),
    }
}

pub struct OutboxPush {
    outbox: Arc<Outbox>,
    clock: SharedClock,
}

#[async_trait]
impl PushSender for OutboxPush {
    async fn send(&self, msg: &PushMessage<'_>) -> Result<PushReceipt, PushError> {
        let details = serde_json::json!({ "platform": msg.platform, "data": msg.data });
        let entry = OutboxEntry {
            subject: Some(msg.title),
            details: Some(&details),
            ..OutboxEntry::new(
                "push",
                msg.device_token,
                msg.body,
                msg.service,
                self.clock.now(),
            )
        };
        let id = self.outbox.accept("push-", entry).await?;
        Ok(PushReceipt {
            provider_message_id: id,
        })
    }

    fn is_sandbox(&self) -> bool {
        true
    }
}

/// The fields of a Google service-account key file this adapter reads.
#[derive(Deserialize, Default)]
#[serde(default)]
struct KeyFile {
    project_id: String,
    private_key_id: String,
    private_key: String,
    client_email: String,
    token_uri: String,
}

/// Firebase Cloud Messaging, HTTP v1 API.
pub struct Fcm {
    http: reqwest::Client,
    clock: SharedClock,
    send_url: String,
    token_uri: String,
    client_email: String,
    key_id: Option<String>,
    key: jsonwebtoken::EncodingKey,
    /// Held across an exchange, so concurrent sends wait for one token instead of each
    /// asking for their own.
    token: Mutex<Option<AccessToken>>,
}

struct AccessToken {
    value: String,
    refresh_at: DateTime<Utc>,
}

/// The first non-empty of the values.
fn first(values: [&str; 2]) -> String {
    values
        .into_iter()
        .find(|v| !v.trim().is_empty())
        .unwrap_or_default()
        .trim()
        .to_owned()
}

impl Fcm {
    /// Settings given inline win over the key file's fields.
    pub fn new(
        s: &PushProviderSettings,
        clock: SharedClock,
        http: reqwest::Client,
    ) -> Result<Self, PushConfigError> {
        let file = if s.service_account_file.is_empty() {
            KeyFile::default()
        } else {
            let text = std::fs::read_to_string(&s.service_account_file).map_err(|e| {
                PushConfigError(format!(
                    "service_account_file {}: {e}",
                    s.service_account_file
                ))
            })?;
            serde_json::from_str(&text).map_err(|e| {
                PushConfigError(format!(
                    "service_account_file {} is not a key file: {e}",
                    s.service_account_file
                ))
            })?
        };
        let project_id = first([&s.project_id, &file.project_id]);
        let client_email = first([&s.client_email, &file.client_email]);
        let private_key = first([&s.private_key, &file.private_key]);
        for (name, value) in [
            ("project_id", &project_id),
            ("client_email", &client_email),
            ("private_key", &private_key),
        ] {
            if value.is_empty() {
                return Err(PushConfigError(format!(
                    "fcm needs {name} (set it or service_account_file)"
                )));
            }
        }
        let token_uri = first([&s.token_uri, &file.token_uri]);
        Ok(Self {
            http,
            clock,
            send_url: format!(
                "{}/v1/projects/{project_id}/messages:send",
                s.base_url.trim_end_matches('/')
            ),
            token_uri: if token_uri.is_empty() {
                DEFAULT_TOKEN_URI.to_owned()
            } else {
                token_uri
            },
            client_email,
            // The file's key id names the file's key only.
            key_id: Some(file.private_key_id)
                .filter(|id| !id.is_empty() && s.private_key.trim().is_empty()),
            key: rsa_key(&private_key)?,
            token: Mutex::new(None),
        })
    }

    /// A valid access token: the kept one, or a new one from the JWT bearer grant.
    async fn access_token(&self) -> Result<String, PushError> {
        let mut kept = self.token.lock().await;
        let now = self.clock.now();
        if let Some(token) = kept.as_ref().filter(|t| now < t.refresh_at) {
            return Ok(token.value.clone());
        }
        let token = self.exchange(now).await?;
        let value = token.value.clone();
        *kept = Some(token);
        Ok(value)
    }

    async fn exchange(&self, now: DateTime<Utc>) -> Result<AccessToken, PushError> {
        #[derive(Serialize)]
        struct Assertion<'a> {
            iss: &'a str,
            scope: &'a str,
            aud: &'a str,
            iat: i64,
            exp: i64,
        }
        #[derive(Deserialize)]
        struct Granted {
            access_token: String,
            expires_in: i64,
        }
        let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::RS256);
        header.kid.clone_from(&self.key_id);
        let claims = Assertion {
            iss: &self.client_email,
            scope: FCM_SCOPE,
            aud: &self.token_uri,
            iat: now.timestamp(),
            exp: (now + ASSERTION_LIFETIME).timestamp(),
        };
        let assertion = jsonwebtoken::encode(&header, &claims, &self.key)
            .map_err(|e| PushError::Permanent(format!("signing the token request: {e}")))?;
        let res = self
            .http
            .post(&self.token_uri)
            .form(&[
                ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
                ("assertion", assertion.as_str()),
            ])
            .send()
            .await
            .map_err(unreachable)?;
        let res = classify(res, Step::Exchange).await?;
        let granted: Granted = res.json().await.map_err(unreachable)?;
        Ok(AccessToken {
            value: granted.access_token,
            refresh_at: now + Duration::seconds(granted.expires_in) - REFRESH_MARGIN,
        })
    }

    fn body(msg: &PushMessage<'_>) -> serde_json::Value {
        let mut message = serde_json::json!({
            "token": msg.device_token,
            "notification": { "title": msg.title, "body": msg.body },
            "data": msg.data,
        });
        // Shown at once even when the app sleeps: high priority on Android, an alert with
        // sound on iOS.
        message[msg.platform.fcm_block()] = match msg.platform {
            Platform::Android => serde_json::json!({ "priority": "HIGH" }),
            Platform::Ios => serde_json::json!({ "payload": { "aps": { "sound": "default" } } }),
        };
        serde_json::json!({ "message": message })
    }
}

#[async_trait]
impl PushSender for Fcm {
    async fn send(&self, msg: &PushMessage<'_>) -> Result<PushReceipt, PushError> {
        #[derive(Deserialize)]
        struct Sent {
            name: String,
        }
        let token = self.access_token().await?;
        let res = self
            .http
            .post(&self.send_url)
            .bearer_auth(&token)
            .json(&Self::body(msg))
            .send()
            .await
            .map_err(unreachable)?;
        if res.status() == reqwest::StatusCode::UNAUTHORIZED {
            // Revoked or expired early: the next attempt trades for a new one.
            *self.token.lock().await = None;
        }
        let sent: Sent = classify(res, Step::Send).await?.json().await.map_err(|e| {
            PushError::Permanent(format!("accepted, answer unreadable: {}", e.without_url()))
        })?;
        Ok(PushReceipt {
            provider_message_id: sent.name,
        })
    }
}

/// The PEM key (PKCS#8 as Google issues it, or PKCS#1) as the signer's key. Inline keys in
/// environment variables often carry `\n` escapes instead of line breaks.
fn rsa_key(pem: &str) -> Result<jsonwebtoken::EncodingKey, PushConfigError> {
    use rsa::pkcs1::{DecodeRsaPrivateKey, EncodeRsaPrivateKey};
    use rsa::pkcs8::DecodePrivateKey;
    let pem = pem.replace("\\n", "\n");
    let key = rsa::RsaPrivateKey::from_pkcs8_pem(&pem)
        .or_else(|_| rsa::RsaPrivateKey::from_pkcs1_pem(&pem))
        .map_err(|e| PushConfigError(format!("private_key is not an RSA key in PEM: {e}")))?;
    let der = key
        .to_pkcs1_der()
        .map_err(|e| PushConfigError(format!("private_key: {e}")))?;
    Ok(jsonwebtoken::EncodingKey::from_rsa_der(der.as_bytes()))
}

fn unreachable(e: reqwest::Error) -> PushError {
    PushError::retryable(super::http_failure(&e))
}

/// Which request an answer is to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Exchange,
    Send,
}

/// The answer when it is a success, else its error: an unregistered token is gone, throttling
/// and server errors are retryable (so is a refused access token on a send: it is fetched
/// again), the rest permanent.
async fn classify(res: reqwest::Response, step: Step) -> Result<reqwest::Response, PushError> {
    use reqwest::StatusCode;
    let status = res.status();
    if status.is_success() {
        return Ok(res);
    }
    let retry_after = res
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(std::time::Duration::from_secs);
    let text = res.text().await.unwrap_or_default();
    let body: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    let unregistered = body["error"]["details"]
        .as_array()
        .is_some_and(|d| d.iter().any(|d| d["errorCode"] == "UNREGISTERED"));
    let message = format!(
        "{step:?} answered {}: {}",
        status.as_u16(),
        text.chars().take(300).collect::<String>()
    );
    let send = step == Step::Send;
    if send && (unregistered || status == StatusCode::NOT_FOUND) {
        Err(PushError::TokenGone)
    } else if status == StatusCode::TOO_MANY_REQUESTS
        || status.is_server_error()
        || (send && status == StatusCode::UNAUTHORIZED)
    {
        Err(PushError::Retryable {
            message,
            retry_after,
        })
    } else {
        Err(PushError::Permanent(message))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn platforms_parse_exactly() {
        assert_eq!(Platform::parse("android"), Some(Platform::Android));
        assert_eq!(Platform::parse("ios"), Some(Platform::Ios));
        for bad in ["Android", "IOS", "", "web"] {
            assert_eq!(Platform::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn fcm_without_credentials_or_with_a_bad_key_is_a_config_error() {
        let http = crate::core::tls::ExtraRoots::default()
            .http()
            .build()
            .unwrap();
        let clock: SharedClock = Arc::new(crate::core::clock::SystemClock);
        let mut s = PushProviderSettings {
            provider: "fcm".into(),
            ..Default::default()
        };
        let err = |s: &PushProviderSettings| {
            Fcm::new(s, clock.clone(), http.clone())
                .err()
                .map(|e| e.to_string())
        };
        assert!(err(&s).unwrap().contains("project_id"));
        s.project_id = "p".into();
        s.client_email = "sa@p.iam.gserviceaccount.com".into();
        s.private_key = "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----".into();
        assert!(err(&s).unwrap().contains("not an RSA key"));
        s.service_account_file = "/nonexistent/key.json".into();
        assert!(err(&s).unwrap().contains("service_account_file"));
    }
}
