//! Voice port: a text-to-speech call. The outbox sandbox by default, a Twilio-compatible
//! Calls API for real traffic (TwiML `<Say>` with the text).

use super::outbox::{Outbox, OutboxEntry};
use super::settings::VoiceProviderSettings;
use super::ProviderError;
use crate::core::clock::SharedClock;
use async_trait::async_trait;
use std::sync::Arc;

#[derive(Debug, Clone)]
pub struct VoiceCall<'a> {
    pub to: &'a str,
    pub text: &'a str,
    pub service: &'a str,
    pub status_callback: Option<&'a str>,
}

#[async_trait]
pub trait VoiceCaller: Send + Sync + 'static {
    /// Places the call; returns the provider's call id.
    async fn call(&self, call: &VoiceCall<'_>) -> Result<String, ProviderError>;
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
            http,
            base_url: s.base_url.trim_end_matches('/').to_owned(),
            account_sid: s.account_sid.clone(),
            auth_token: s.auth_token.clone(),
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
    async fn call(&self, call: &VoiceCall<'_>) -> Result<String, ProviderError> {
        let id = self
            .outbox
            .accept(
                "CA",
                OutboxEntry {
                    channel: "voice",
                    to: call.to,
                    subject: None,
                    text: call.text,
                    service: call.service,
                    created_at: self.clock.now(),
                    provider_message_id: None,
                },
            )
            .await?;
        Ok(id)
    }

    fn is_sandbox(&self) -> bool {
        true
    }
}

pub struct TwilioCalls {
    http: reqwest::Client,
    base_url: String,
    account_sid: String,
    auth_token: String,
    from: String,
    voice: String,
}

/// TwiML that reads `text` aloud; the text is XML-escaped.
pub fn say_twiml(text: &str, voice: &str) -> String {
    format!(
        "<Response><Say voice=\"{}\">{}</Say></Response>",
        xml_escape(voice),
        xml_escape(text)
    )
}

fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c.is_control() && c != '\n' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[async_trait]
impl VoiceCaller for TwilioCalls {
    async fn call(&self, call: &VoiceCall<'_>) -> Result<String, ProviderError> {
        let url = format!(
            "{}/2010-04-01/Accounts/{}/Calls.json",
            self.base_url, self.account_sid
        );
        let twiml = say_twiml(call.text, &self.voice);
        let mut form = vec![
            ("To", call.to),
            ("From", self.from.as_str()),
            ("Twiml", twiml.as_str()),
        ];
        if let Some(cb) = call.status_callback {
            form.push(("StatusCallback", cb));
        }
        let sid =
            super::twilio::create(&self.http, url, &self.account_sid, &self.auth_token, &form)
                .await?;
        Ok(sid)
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
