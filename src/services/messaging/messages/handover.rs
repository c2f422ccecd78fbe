//! The provider of each channel, as the dispatcher and reconciliation use it: hand a message
//! over (once: a retaken hand-over first looks for the earlier one) and ask for its status.

use super::super::consent::unsubscribe;
use super::super::state::MessagingState;
use crate::providers::email::EmailMessage;
use crate::providers::sms::SmsMessage;
use crate::providers::voice::VoiceCall;
use crate::providers::whatsapp::WhatsAppMessage;
use crate::providers::{Accepted, Handover, ProviderError};
use switchboard_entities::messaging::message;

/// The built-in sandbox of a channel (which reports delivery through a job, not a carrier).
pub fn is_sandbox(st: &MessagingState, channel: &str) -> bool {
    match channel {
        "sms" => st.sms_sandbox,
        "email" => st.email.is_sandbox(),
        "whatsapp" => st.whatsapp.is_sandbox(),
        "voice" => st.voice.is_sandbox(),
        _ => false,
    }
}

/// Where the carrier reports on this message: the status callback names the message, so a
/// report that overtakes the hand-over's commit still finds it.
fn status_callback(st: &MessagingState, m: &message::Model) -> String {
    format!(
        "{}/carrier/status?message_id={}",
        st.cfg.public_url.trim_end_matches('/'),
        m.id
    )
}

/// `Name <address>` → (name, address).
fn split_sender(s: &str) -> (&str, &str) {
    match s.rsplit_once(" <") {
        Some((name, rest)) => (name, rest.trim_end_matches('>')),
        None => ("", s),
    }
}

fn unknown_channel(channel: &str) -> ProviderError {
    ProviderError::Rejected {
        status: 0,
        message: format!("unknown channel {channel}"),
    }
}

/// Hands `m` to its channel's provider.
pub async fn hand_over(
    st: &MessagingState,
    m: &message::Model,
    h: &Handover<'_>,
) -> Result<Accepted, ProviderError> {
    let text = m.text.as_deref().unwrap_or_default();
    let callback = status_callback(st, m);
    match m.channel.as_str() {
        "sms" => {
            let msg = SmsMessage {
                to: &m.recipient,
                body: text,
                service: "messaging",
                status_callback: Some(&callback),
            };
            st.providers.sms.hand_over(h, &msg).await
        }
        "email" => {
            let (name, address) = split_sender(m.sender.as_deref().unwrap_or_default());
            // Bulk mail carries the one-click unsubscribe; a single send is transactional.
            let unsubscribe = match m.bulk_id {
                Some(_) => Some(
                    unsubscribe::headers(st, m)
                        .await
                        .map_err(|e| ProviderError::Unreachable(format!("database: {e}")))?,
                ),
                None => None,
            };
            let msg = EmailMessage {
                to: &m.recipient,
                from_name: name,
                from_address: address,
                subject: m.subject.as_deref().unwrap_or_default(),
                text: m.text.as_deref(),
                html: m.html.as_deref(),
                service: "messaging",
                attachments: &[],
                list_unsubscribe: unsubscribe.as_ref(),
            };
            st.email.send(h, &msg).await
        }
        "whatsapp" => {
            let msg = WhatsAppMessage {
                to: &m.recipient,
                body: text,
                service: "messaging",
            };
            st.whatsapp.send(h, &msg).await
        }
        "voice" => {
            let call = VoiceCall {
                to: &m.recipient,
                text,
                service: "messaging",
                status_callback: Some(&callback),
            };
            st.voice.call(h, &call).await
        }
        other => Err(unknown_channel(other)),
    }
}

/// The provider's status word for a message it accepted; None when it keeps none.
pub async fn status(
    st: &MessagingState,
    m: &message::Model,
    provider_message_id: &str,
) -> Result<Option<String>, ProviderError> {
    match m.channel.as_str() {
        "sms" => st.providers.sms.status(provider_message_id, m.id).await,
        "email" => st.email.status(provider_message_id, m.id).await,
        "whatsapp" => st.whatsapp.status(provider_message_id, m.id).await,
        "voice" => st.voice.status(provider_message_id, m.id).await,
        other => Err(unknown_channel(other)),
    }
}
