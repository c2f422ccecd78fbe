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
    pub screenshots: ScreenshotSettings,
    pub payments: super::payments::PaymentsSettings,
    pub pdf: super::pdf::PdfSettings,
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
    /// The verification key of SendGrid's Signed Event Webhook (base64 of the DER public
    /// key, as SendGrid shows it): bounces and complaints POSTed to the messaging service's
    /// `/providers/email/events` suppress their addresses. Empty: that endpoint answers 404.
    pub events_public_key: String,
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
            events_public_key: String::new(),
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

/// `[providers.screenshots]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct ScreenshotSettings {
    /// `builtin` (key-frame matching and tesseract OCR) or `openai` (a vision chat on the
    /// `[ai]` settings).
    pub verifier: String,
    pub tesseract_path: String,
    /// Tesseract's language data to read with.
    pub tesseract_lang: String,
    /// Longest one OCR pass may run.
    pub timeout_secs: u64,
    /// The vision model's answer counts only at this confidence (0 to 1) or above.
    pub min_confidence: f64,
    /// Hashes at most this many bits apart are the same picture (see `is_duplicate`).
    pub duplicate_max_distance: u32,
    /// … and their prints of where the code is at least this alike (NCC, up to 1)…
    pub detail_min_similarity: f32,
    /// … or, when no video was found in them, their whole pictures at least this alike.
    pub picture_min_similarity: f32,
    /// A key frame matched with at least this NCC (−1 to 1) outside the code's box shows
    /// the video.
    pub video_min_score: f32,
    /// The code's box matches this subscription's with at least this NCC.
    pub code_box_min_score: f32,
}

impl Default for ScreenshotSettings {
    fn default() -> Self {
        Self {
            verifier: "builtin".into(),
            tesseract_path: "tesseract".into(),
            tesseract_lang: "eng".into(),
            timeout_secs: 30,
            min_confidence: 0.8,
            duplicate_max_distance: 4,
            detail_min_similarity: 0.9,
            picture_min_similarity: 0.98,
            video_min_score: 0.70,
            code_box_min_score: 0.70,
        }
    }
}
