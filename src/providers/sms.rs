//! SMS port: the outbox sandbox by default, a Twilio-compatible HTTP API for real traffic.

use super::outbox::{Outbox, OutboxEntry};
use super::settings::SmsProviderSettings;
use super::twilio::TwilioApi;
use super::{Accepted, Handover, ProviderError};
use crate::core::clock::SharedClock;
use crate::core::phone::PhoneNumber;
use async_trait::async_trait;
use std::sync::Arc;
use uuid::Uuid;

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

/// A one-time code to text: "{intro} {code}. It expires in N minutes. Never share it."
pub struct CodeText<'a> {
    pub to: &'a PhoneNumber,
    /// The sending service (recorded in the outbox).
    pub service: &'a str,
    /// The opening words, naming what the code is for ("Your sign-in code is").
    pub intro: &'a str,
    pub code: &'a str,
    pub ttl_secs: i64,
}

/// Texts a one-time code in the wording every service uses.
pub async fn send_code(
    sender: &dyn SmsSender,
    text: CodeText<'_>,
) -> Result<SmsReceipt, ProviderError> {
    let body = format!(
        "{} {}. It expires in {} minutes. Never share it.",
        text.intro,
        text.code,
        text.ttl_secs / 60
    );
    sender
        .send(&SmsMessage {
            to: text.to.as_str(),
            body: &body,
            service: text.service,
            status_callback: None,
        })
        .await
}

#[async_trait]
pub trait SmsSender: Send + Sync + 'static {
    /// Sends a one-off text (a code): every call sends.
    async fn send(&self, msg: &SmsMessage<'_>) -> Result<SmsReceipt, ProviderError>;
    /// Hands the message `h.message_id` over once: a retaken hand-over finds the first one
    /// (where the provider keeps a record of it) instead of sending again.
    async fn hand_over(
        &self,
        h: &Handover<'_>,
        msg: &SmsMessage<'_>,
    ) -> Result<Accepted, ProviderError>;
    /// The provider's status word for a message it accepted; None when it keeps none.
    async fn status(
        &self,
        provider_message_id: &str,
        message_id: Uuid,
    ) -> Result<Option<String>, ProviderError>;
}

pub fn from_settings(
    settings: &SmsProviderSettings,
    outbox: Arc<Outbox>,
    clock: SharedClock,
    http: reqwest::Client,
) -> Arc<dyn SmsSender> {
    match settings.provider.as_str() {
        "twilio" => Arc::new(TwilioSms {
            api: TwilioApi::new(
                http,
                &settings.base_url,
                &settings.account_sid,
                &settings.auth_token,
            ),
            from: settings.from.clone(),
        }),
        _ => Arc::new(OutboxSms { outbox, clock }),
    }
}

pub struct OutboxSms {
    pub outbox: Arc<Outbox>,
    pub clock: SharedClock,
}

impl OutboxSms {
    fn entry<'a>(&self, msg: &SmsMessage<'a>) -> OutboxEntry<'a> {
        OutboxEntry::new("sms", msg.to, msg.body, msg.service, self.clock.now())
    }
}

#[async_trait]
impl SmsSender for OutboxSms {
    async fn send(&self, msg: &SmsMessage<'_>) -> Result<SmsReceipt, ProviderError> {
        let id = self.outbox.accept("SM", self.entry(msg)).await?;
        Ok(SmsReceipt {
            provider_message_id: id,
        })
    }

    async fn hand_over(
        &self,
        h: &Handover<'_>,
        msg: &SmsMessage<'_>,
    ) -> Result<Accepted, ProviderError> {
        Ok(self.outbox.hand_over("SM", h, self.entry(msg)).await?)
    }

    async fn status(&self, _: &str, message_id: Uuid) -> Result<Option<String>, ProviderError> {
        Ok(self.outbox.status(message_id).await?)
    }
}

/// Twilio's Messages API (and any service that speaks it).
pub struct TwilioSms {
    api: TwilioApi,
    from: String,
}

#[async_trait]
impl SmsSender for TwilioSms {
    async fn send(&self, msg: &SmsMessage<'_>) -> Result<SmsReceipt, ProviderError> {
        let mut form = vec![
            ("To", msg.to),
            ("From", self.from.as_str()),
            ("Body", msg.body),
        ];
        if let Some(cb) = msg.status_callback {
            form.push(("StatusCallback", cb));
        }
        let sid = self.api.create("Messages", &form).await?;
        Ok(SmsReceipt {
            provider_message_id: sid,
        })
    }

    async fn hand_over(
        &self,
        h: &Handover<'_>,
        msg: &SmsMessage<'_>,
    ) -> Result<Accepted, ProviderError> {
        if let Some(retake) = &h.retake {
            let same_body = |r: &super::twilio::Record| r.body.as_deref() == Some(msg.body);
            let earlier = self
                .api
                .earlier("Messages", retake, msg.to, "DateSent>", same_body)
                .await?;
            if let Some(found) = earlier {
                return Ok(found);
            }
        }
        let receipt = self.send(msg).await?;
        Ok(Accepted::new(receipt.provider_message_id))
    }

    async fn status(&self, sid: &str, _: Uuid) -> Result<Option<String>, ProviderError> {
        Ok(self.api.fetch("Messages", sid).await?.map(|r| r.status))
    }
}
