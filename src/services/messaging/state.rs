//! The messaging service's state, handed to every handler and job: settings, the channels'
//! senders and the webhook actors.

use super::settings::MessagingSettings;
use crate::core::signed_link::LinkKey;
use crate::core::CoreContext;
use crate::providers::email::EmailSender;
use crate::providers::voice::VoiceCaller;
use crate::providers::whatsapp::WhatsAppSender;
use crate::providers::Providers;
use std::sync::Arc;
use switchboard_actors::WebhookRegistry;

#[derive(Clone)]
pub struct MessagingState {
    pub core: CoreContext,
    pub providers: Providers,
    pub cfg: Arc<MessagingSettings>,
    pub email: Arc<dyn EmailSender>,
    pub whatsapp: Arc<dyn WhatsAppSender>,
    pub voice: Arc<dyn VoiceCaller>,
    /// Whether SMS goes to the built-in sandbox (which may report delivery itself).
    pub sms_sandbox: bool,
    pub webhooks: Arc<WebhookRegistry>,
    /// Signs the one-click unsubscribe links of bulk mail.
    pub unsubscribe: LinkKey,
    /// Verifies the email provider's bounce and complaint events (None: not configured).
    pub email_events_key: Option<p256::ecdsa::VerifyingKey>,
}
