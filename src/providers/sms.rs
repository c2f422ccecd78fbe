//! SMS port: the outbox sandbox by default, a Twilio-compatible HTTP API for real traffic.

use super::outbox::{Outbox, OutboxEntry};
use super::settings::SmsProviderSettings;
use super::twilio::TwilioApi;
use super::{Accepted, Handover, ProviderError};
use crate::core::clock::SharedClock;
use crate::core::error::ApiError;
use crate::core::otp::OtpCodes;
use crate::core::phone::PhoneNumber;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
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

/// Stores a fresh code of `purpose` for `phone` (retiring the earlier ones) and texts it in
/// the wording every service uses: "{intro} {code}. It expires in N minutes. Never share it."
pub async fn text_new_code(
    codes: &OtpCodes<'_>,
    sender: &dyn SmsSender,
    phone: &PhoneNumber,
    purpose: &str,
    intro: &str,
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    let code = codes.issue(phone, purpose, now).await?;
    let body = format!(
        "{intro} {code}. It expires in {} minutes. Never share it.",
        codes.ttl_secs / 60
    );
    let msg = SmsMessage {
        to: phone.as_str(),
        body: &body,
        service: codes.service,
        status_callback: None,
    };
    sender.send(&msg).await.map_err(ApiError::internal)?;
    Ok(())
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
