//! WhatsApp port: the outbox sandbox by default, the WhatsApp Cloud API for real traffic.

use super::outbox::{Outbox, OutboxEntry};
use super::settings::WhatsAppProviderSettings;
use super::{Accepted, Handover, ProviderError};
use crate::core::clock::SharedClock;
use async_trait::async_trait;
use std::sync::Arc;
use uuid::Uuid;

#[derive(Debug, Clone)]
pub struct WhatsAppMessage<'a> {
    pub to: &'a str,
    pub body: &'a str,
    pub service: &'a str,
}

message_port! {
    /// Where WhatsApp text messages go. The Cloud API has no look-up by recipient, so a
    /// retaken hand-over sends again there; the sandbox hands each message over once.
    WhatsAppSender for WhatsAppMessage
}

pub fn from_settings(
    s: &WhatsAppProviderSettings,
    outbox: Arc<Outbox>,
    clock: SharedClock,
    http: reqwest::Client,
) -> Arc<dyn WhatsAppSender> {
    match s.provider.as_str() {
        "cloud_api" => Arc::new(CloudApi {
            http,
            url: format!(
                "{}/{}/{}/messages",
                s.base_url.trim_end_matches('/'),
                s.api_version,
                s.phone_number_id
            ),
            token: s.access_token.clone(),
        }),
        _ => Arc::new(OutboxWhatsApp { outbox, clock }),
    }
}

pub struct OutboxWhatsApp {
    outbox: Arc<Outbox>,
    clock: SharedClock,
}

#[async_trait]
impl WhatsAppSender for OutboxWhatsApp {
    async fn send(
        &self,
        h: &Handover<'_>,
        msg: &WhatsAppMessage<'_>,
    ) -> Result<Accepted, ProviderError> {
        let entry = OutboxEntry::new("whatsapp", msg.to, msg.body, msg.service, self.clock.now());
        Ok(self.outbox.hand_over("wamid.", h, entry).await?)
    }

    async fn status(&self, _: &str, message_id: Uuid) -> Result<Option<String>, ProviderError> {
        Ok(self.outbox.status(message_id).await?)
    }

    fn is_sandbox(&self) -> bool {
        true
    }
}

/// `POST {base}/{version}/{phone_number_id}/messages` with a bearer token.
pub struct CloudApi {
    http: reqwest::Client,
    url: String,
    token: String,
}

#[derive(serde::Deserialize)]
struct CloudResponse {
    messages: Vec<CloudMessage>,
}

#[derive(serde::Deserialize)]
struct CloudMessage {
    id: String,
}

#[async_trait]
impl WhatsAppSender for CloudApi {
    async fn send(
        &self,
        _: &Handover<'_>,
        msg: &WhatsAppMessage<'_>,
    ) -> Result<Accepted, ProviderError> {
        // The Cloud API takes the number without the leading plus.
        let to = msg.to.trim_start_matches('+');
        let res = self
            .http
            .post(&self.url)
            .bearer_auth(&self.token)
            .json(&serde_json::json!({
                "messaging_product": "whatsapp",
                "recipient_type": "individual",
                "to": to,
                "type": "text",
                "text": { "preview_url": false, "body": msg.body },
            }))
            .send()
            .await
            .map_err(|e| ProviderError::Unreachable(super::http_failure(&e)))?;
        let status = res.status();
        if !status.is_success() {
            let body = res.text().await.unwrap_or_default();
            return Err(ProviderError::Rejected {
                status: status.as_u16(),
                message: body.chars().take(300).collect(),
            });
        }
        let parsed: CloudResponse = res
            .json()
            .await
            .map_err(|e| ProviderError::Unreachable(e.without_url().to_string()))?;
        parsed
            .messages
            .into_iter()
            .next()
            .map(|m| Accepted::new(m.id))
            .ok_or_else(|| ProviderError::Unreachable("response named no message id".into()))
    }
}
