//! SMS port: the outbox sandbox by default, a Twilio-compatible HTTP API for real traffic.

use super::outbox::{Outbox, OutboxEntry};
use super::settings::SmsProviderSettings;
use super::ProviderError;
use crate::core::clock::SharedClock;
use async_trait::async_trait;
use std::sync::Arc;

#[derive(Debug, Clone)]
pub struct SmsMessage<'a> {
    pub to: &'a str,
    pub body: &'a str,
    /// Which service sends it (recorded in the outbox).
    pub service: &'a str,
    /// Where the carrier should report delivery status, when the sender tracks it.
    pub status_callback: Option<&'a str>,
}

#[derive(Debug, Clone)]
pub struct SmsReceipt {
    pub provider_message_id: String,
}

#[async_trait]
pub trait SmsSender: Send + Sync + 'static {
    async fn send(&self, msg: &SmsMessage<'_>) -> Result<SmsReceipt, ProviderError>;
}

pub fn from_settings(
    settings: &SmsProviderSettings,
    outbox: Arc<Outbox>,
    clock: SharedClock,
    http: reqwest::Client,
) -> Arc<dyn SmsSender> {
    match settings.provider.as_str() {
        "twilio" => Arc::new(TwilioSms {
            http,
            base_url: settings.base_url.trim_end_matches('/').to_owned(),
            account_sid: settings.account_sid.clone(),
            auth_token: settings.auth_token.clone(),
            from: settings.from.clone(),
        }),
        _ => Arc::new(OutboxSms { outbox, clock }),
    }
}

pub struct OutboxSms {
    pub outbox: Arc<Outbox>,
    pub clock: SharedClock,
}

#[async_trait]
impl SmsSender for OutboxSms {
    async fn send(&self, msg: &SmsMessage<'_>) -> Result<SmsReceipt, ProviderError> {
        let id = self
            .outbox
            .accept(
                "SM",
                OutboxEntry {
                    channel: "sms",
                    to: msg.to,
                    subject: None,
                    text: msg.body,
                    service: msg.service,
                    created_at: self.clock.now(),
                    provider_message_id: None,
                },
            )
            .await?;
        Ok(SmsReceipt {
            provider_message_id: id,
        })
    }
}

/// Twilio's Messages API (and any service that speaks it).
pub struct TwilioSms {
    http: reqwest::Client,
    base_url: String,
    account_sid: String,
    auth_token: String,
    from: String,
}

#[async_trait]
impl SmsSender for TwilioSms {
    async fn send(&self, msg: &SmsMessage<'_>) -> Result<SmsReceipt, ProviderError> {
        let url = format!(
            "{}/2010-04-01/Accounts/{}/Messages.json",
            self.base_url, self.account_sid
        );
        let mut form = vec![
            ("To", msg.to),
            ("From", self.from.as_str()),
            ("Body", msg.body),
        ];
        if let Some(cb) = msg.status_callback {
            form.push(("StatusCallback", cb));
        }
        let sid =
            super::twilio::create(&self.http, url, &self.account_sid, &self.auth_token, &form)
                .await?;
        Ok(SmsReceipt {
            provider_message_id: sid,
        })
    }
}
