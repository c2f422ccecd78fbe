//! Ports to the outside world and their adapters. Each port is a trait with a built-in
//! default (the local outbox) and a real adapter chosen in config.

/// Declares the port of a message channel (email, WhatsApp): `send` hands message
/// `h.message_id` over, `status` reads the provider's word for a message it accepted (None
/// when it keeps none), `is_sandbox` is true for the built-in outbox (which may report
/// delivery itself). One declaration, so every channel's port reads alike.
macro_rules! message_port {
    ($(#[$doc:meta])* $port:ident for $message:ident) => {
        $(#[$doc])*
        #[async_trait::async_trait]
        pub trait $port: Send + Sync + 'static {
            async fn send(
                &self,
                h: &$crate::providers::Handover<'_>,
                msg: &$message<'_>,
            ) -> Result<$crate::providers::Accepted, $crate::providers::ProviderError>;
            async fn status(
                &self,
                _id: &str,
                _message_id: uuid::Uuid,
            ) -> Result<Option<String>, $crate::providers::ProviderError> {
                Ok(None)
            }
            fn is_sandbox(&self) -> bool {
                false
            }
        }
    };
}

pub mod ai;
pub mod car_ai;
pub mod email;
pub mod handover;
pub mod kyc;
pub mod openai_chat;
pub mod outbox;
pub mod payments;
pub mod pdf;
pub mod push;
pub mod rubric;
pub mod screenshot;
pub mod settings;
pub mod skills;
pub mod sms;
pub mod storage;
pub mod tool;
pub mod twilio;
pub mod video;
pub mod voice;
pub mod whatsapp;

use crate::core::clock::SharedClock;
use crate::core::tls::ExtraRoots;
use settings::{AiSettings, OutboxSettings, ProvidersSettings};
use std::sync::Arc;

pub use handover::{http_failure, Accepted, Handover, ProviderError, Retake, HTTP_TIMEOUT};

/// The providers startup builds once and hands every service's `mount` next to the
/// `CoreContext`: the senders more than one service uses, and the settings services build
/// their own senders from.
#[derive(Clone)]
pub struct Providers {
    pub outbox: Arc<outbox::Outbox>,
    pub sms: Arc<dyn sms::SmsSender>,
    pub push: Arc<dyn push::PushSender>,
    pub interviewer: Arc<dyn switchboard_actors::interview::Interviewer>,
    /// The marketplace's AI helpers' writer (the same `[ai]` model as the interviewer).
    pub car_writer: Arc<dyn car_ai::CarWriter>,
    /// Where media files are kept (`[providers.storage]`).
    pub storage: Arc<dyn storage::Storage>,
    /// ffmpeg (`[providers.video]`).
    pub video: Arc<dyn video::VideoProcessor>,
    /// Whether a screenshot shows a referral code (`[providers.screenshots]`).
    pub screenshot_verifier: Arc<dyn screenshot::ScreenshotVerifier>,
    /// Checkouts that fund ads (`[providers.payments]`).
    pub payments: Arc<dyn payments::PaymentsProvider>,
    /// Interview reports and invoices as PDF, in the fonts of `[providers.pdf]`.
    pub pdf: Arc<pdf::PdfWriter>,
    /// The client for providers' HTTP APIs.
    pub http: reqwest::Client,
    /// `[tls] extra_ca_file`, for the clients services build themselves (webhooks, SMTP).
    pub roots: ExtraRoots,
    /// `[providers.*]`.
    pub settings: Arc<ProvidersSettings>,
}

impl Providers {
    /// Builds the senders named in the settings; nothing is contacted yet.
    pub fn build(
        outbox: &OutboxSettings,
        channels: &ProvidersSettings,
        ai: &AiSettings,
        clock: SharedClock,
        roots: &ExtraRoots,
    ) -> Result<Self, BuildError> {
        let http = roots.http().timeout(HTTP_TIMEOUT).build()?;
        let outbox = Arc::new(outbox::Outbox::new(&outbox.path));
        Ok(Self {
            push: push::from_settings(&channels.push, outbox.clone(), clock.clone(), http.clone())?,
            sms: sms::from_settings(&channels.sms, outbox.clone(), clock, http.clone()),
            interviewer: ai::from_settings(ai, http.clone()),
            car_writer: car_ai::from_settings(ai, http.clone()),
            storage: storage::from_settings(&channels.storage, roots)?,
            video: video::from_settings(&channels.video),
            screenshot_verifier: screenshot::from_settings(&channels.screenshots, ai, http.clone()),
            payments: payments::from_settings(&channels.payments, http.clone()),
            pdf: Arc::new(pdf::PdfWriter::new(&channels.pdf)),
            outbox,
            http,
            roots: roots.clone(),
            settings: Arc::new(channels.clone()),
        })
    }
}

/// Why the providers could not be built: startup stops on it.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("http client: {0}")]
    Http(#[from] reqwest::Error),
    #[error(transparent)]
    Push(#[from] push::PushConfigError),
    #[error("[providers.storage]: {0}")]
    Storage(#[from] storage::StorageError),
}
