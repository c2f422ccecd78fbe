//! Voice port: a text-to-speech call. The outbox sandbox by default, a Twilio-compatible
//! Calls API for real traffic (TwiML `<Say>` with the text).

use super::outbox::{Outbox, OutboxEntry};
use super::settings::VoiceProviderSettings;
use super::twilio::TwilioApi;
use super::{Accepted, Handover, ProviderError};
use crate::core::clock::SharedClock;
use crate::core::markup::escape;
use async_trait::async_trait;
use std::sync::Arc;
use uuid::Uuid;

#[derive(Debug, Clone)]
pub struct VoiceCall<'a> {
    pub to: &'a str,
    pub text: &'a str,
    pub service: &'a str,
    pub status_callback: Option<&'a str>,
}

#[async_trait]
pub trait VoiceCaller: Send + Sync + 'static {
    /// Places the call for message `h.message_id` once: a retaken hand-over finds the call
    /// the first one placed instead of calling again.
    async fn call(&self, h: &Handover<'_>, call: &VoiceCall<'_>)
        -> Result<Accepted, ProviderError>;
    /// The provider's status word for a call it placed; None when it keeps none.
    async fn status(
        &self,
        call_id: &str,
        message_id: Uuid,
    ) -> Result<Option<String>, ProviderError>;
    fn is_sandbox(&self) -> bool {
        false
    }
}

pub fn from_settings(
    s: &VoiceProviderSettings,
    outbox: Arc<Outbox>,
    clock: SharedClock,
    http: reqwest::Client,
) -> Arc<dyn VoiceCaller> {
    match s.provider.as_str() {
        "twilio" => Arc::new(TwilioCalls {
            api: TwilioApi::new(http, &s.base_url, &s.account_sid, &s.auth_token),
            from: s.from.clone(),
            voice: s.voice.clone(),
        }),
        _ => Arc::new(OutboxVoice { outbox, clock }),
    }
}

pub struct OutboxVoice {
    outbox: Arc<Outbox>,
    clock: SharedClock,
}

#[async_trait]
impl VoiceCaller for OutboxVoice {
    async fn call(
        &self,
        h: &Handover<'_>,
        call: &VoiceCall<'_>,
    ) -> Result<Accepted, ProviderError> {
        let entry = OutboxEntry::new("voice", call.to, call.text, call.service, self.clock.now());
        Ok(self.outbox.hand_over("CA", h, entry).await?)
    }

    async fn status(&self, _: &str, message_id: Uuid) -> Result<Option<String>, ProviderError> {
        Ok(self.outbox.status(message_id).await?)
    }

    fn is_sandbox(&self) -> bool {
        true
    }
}

pub struct TwilioCalls {
    api: TwilioApi,
    from: String,
    voice: String,
}

/// TwiML that reads `text` aloud; the text is XML-escaped.
pub fn say_twiml(text: &str, voice: &str) -> String {
    format!(
        "<Response><Say voice=\"{}\">{}</Say></Response>",
        escape(voice),
        escape(text)
    )
}

#[async_trait]
impl VoiceCaller for TwilioCalls {
    async fn call(
        &self,
        h: &Handover<'_>,
        call: &VoiceCall<'_>,
    ) -> Result<Accepted, ProviderError> {
        if let Some(retake) = &h.retake {
            // A call record holds no text: a call to the recipient no other message holds.
            let earlier = self
                .api
                .earlier("Calls", retake, call.to, "StartTime>", |_| true)
                .await?;
            if let Some(found) = earlier {
                return Ok(found);
            }
        }
        let twiml = say_twiml(call.text, &self.voice);
        let mut form = vec![
            ("To", call.to),
            ("From", self.from.as_str()),
            ("Twiml", twiml.as_str()),
        ];
        if let Some(cb) = call.status_callback {
            form.push(("StatusCallback", cb));
        }
        Ok(Accepted::new(self.api.create("Calls", &form).await?))
    }

    async fn status(&self, sid: &str, _: Uuid) -> Result<Option<String>, ProviderError> {
        Ok(self.api.fetch("Calls", sid).await?.map(|r| r.status))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn twiml_escapes_text() {
        assert_eq!(
            super::say_twiml("a<b & \"c\"", "alice"),
            "<Response><Say voice=\"alice\">a&lt;b &amp; &quot;c&quot;</Say></Response>"
        );
    }
}
