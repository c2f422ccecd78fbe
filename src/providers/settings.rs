//! The providers' sections of the configuration file: `[outbox]`, `[providers.*]` and `[ai]`.

use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct OutboxSettings {
    pub path: String,
}

impl Default for OutboxSettings {
    fn default() -> Self {
        Self {
            path: "data/outbox.jsonl".into(),
        }
    }
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default)]
pub struct ProvidersSettings {
    pub sms: SmsProviderSettings,
    pub email: EmailProviderSettings,
    pub whatsapp: WhatsAppProviderSettings,
    pub voice: VoiceProviderSettings,
    pub push: PushProviderSettings,
    pub storage: super::storage::StorageSettings,
    pub video: super::video::VideoSettings,
    pub screenshots: super::screenshot::ScreenshotSettings,
    pub payments: super::payments::PaymentsSettings,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct PushProviderSettings {
    /// `outbox` (built-in sandbox) or `fcm` (Firebase Cloud Messaging HTTP v1).
    pub provider: String,
    pub base_url: String,
    /// Empty: the key file's.
    pub project_id: String,
    /// A Google service-account key (JSON); the fields below, when set, win over its own.
    pub service_account_file: String,
    pub client_email: String,
    /// PEM (PKCS#8 as Google issues it, or PKCS#1).
    pub private_key: String,
    /// Empty: the key file's, else Google's.
    pub token_uri: String,
}

impl Default for PushProviderSettings {
    fn default() -> Self {
        Self {
            provider: "outbox".into(),
            base_url: "https://fcm.googleapis.com".into(),
            project_id: String::new(),
            service_account_file: String::new(),
            client_email: String::new(),
            private_key: String::new(),
            token_uri: String::new(),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct EmailProviderSettings {
    /// `outbox` (built-in sandbox) or `smtp`.
    pub provider: String,
    pub host: String,
    pub port: u16,
    pub username: String,
    pub password: String,
    /// `none`, `starttls` or `tls`.
    pub tls: String,
    pub timeout_secs: u64,
}

impl Default for EmailProviderSettings {
    fn default() -> Self {
        Self {
            provider: "outbox".into(),
            host: "127.0.0.1".into(),
            port: 25,
            username: String::new(),
            password: String::new(),
            tls: "starttls".into(),
            timeout_secs: 30,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct WhatsAppProviderSettings {
    /// `outbox` (built-in sandbox) or `cloud_api` (WhatsApp Cloud API).
    pub provider: String,
    pub base_url: String,
    pub api_version: String,
    pub phone_number_id: String,
    pub access_token: String,
}

impl Default for WhatsAppProviderSettings {
    fn default() -> Self {
        Self {
            provider: "outbox".into(),
            base_url: "https://graph.facebook.com".into(),
            api_version: "v21.0".into(),
            phone_number_id: String::new(),
            access_token: String::new(),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct VoiceProviderSettings {
    /// `outbox` (built-in sandbox) or `twilio` (Twilio-compatible Calls API).
    pub provider: String,
    pub base_url: String,
    pub account_sid: String,
    pub auth_token: String,
    pub from: String,
    /// Text-to-speech voice named in the TwiML `<Say>`.
    pub voice: String,
}

impl Default for VoiceProviderSettings {
    fn default() -> Self {
        Self {
            provider: "outbox".into(),
            base_url: "https://api.twilio.com".into(),
            account_sid: String::new(),
            auth_token: String::new(),
            from: "+15005550006".into(),
            voice: "alice".into(),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct SmsProviderSettings {
    /// `outbox` (built-in sandbox) or `twilio` (Twilio-compatible HTTP API).
    pub provider: String,
    pub base_url: String,
    pub account_sid: String,
    pub auth_token: String,
    pub from: String,
}

impl Default for SmsProviderSettings {
    fn default() -> Self {
        Self {
            provider: "outbox".into(),
            base_url: "https://api.twilio.com".into(),
            account_sid: String::new(),
            auth_token: "dev-carrier-token".into(),
            from: "+15005550006".into(),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct AiSettings {
    pub provider: String,
    pub base_url: String,
    pub api_key: String,
    pub model: String,
    pub timeout_secs: u64,
}

impl Default for AiSettings {
    fn default() -> Self {
        Self {
            provider: "builtin".into(),
            base_url: String::new(),
            api_key: String::new(),
            model: String::new(),
            timeout_secs: 20,
        }
    }
}
