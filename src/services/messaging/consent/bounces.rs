//! Hard bounces and complaints reported by the email provider, in the shape SendGrid's Event
//! Webhook sends: a JSON array of events, signed with ECDSA P-256 over the timestamp header
//! followed by the raw body (`X-Twilio-Email-Event-Webhook-Signature`, base64 DER; `…-Timestamp`).
//! Each bounce (`bounce` of type `bounce`, or `dropped` as a bounced address) and complaint
//! (`spamreport`) suppresses its address for the workspace whose mail it was; the mail is found
//! by the `smtp-id` SendGrid echoes, which is the Message-ID this service set (the message's
//! provider id). Other events (delivered, open, deferred, a `blocked` bounce, …) are read and
//! left alone.

use super::super::messages::domain::Channel;
use super::super::state::MessagingState;
use super::super::webhooks::events::Emitted;
use super::domain::Address;
use super::store::{self, Cause};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use chrono::{DateTime, Utc};
use p256::ecdsa::signature::Verifier;
use p256::ecdsa::{Signature, VerifyingKey};
use p256::pkcs8::DecodePublicKey;
use sea_orm::{ColumnTrait, DbErr, EntityTrait, QueryFilter};
use serde::Deserialize;
use switchboard_entities::messaging::message;
use switchboard_entities::messaging::suppression::ConsentSource;

pub const SIGNATURE_HEADER: &str = "X-Twilio-Email-Event-Webhook-Signature";
pub const TIMESTAMP_HEADER: &str = "X-Twilio-Email-Event-Webhook-Timestamp";

/// How far a signed timestamp may be from now: a captured request replays for no longer.
const TOLERANCE_SECS: i64 = 600;

/// The provider's verification key, parsed once at start (None: not configured).
pub fn verifying_key(base64_der: &str) -> Result<Option<VerifyingKey>, String> {
    let b64 = base64_der.trim();
    if b64.is_empty() {
        return Ok(None);
    }
    let der = STANDARD
        .decode(b64)
        .map_err(|e| format!("providers.email.events_public_key is not base64: {e}"))?;
    VerifyingKey::from_public_key_der(&der)
        .map(Some)
        .map_err(|e| format!("providers.email.events_public_key is no P-256 public key: {e}"))
}

/// Whether `body` was signed at `timestamp` by the holder of `key`, recently.
pub fn verify(
    key: &VerifyingKey,
    signature_b64: &str,
    timestamp: &str,
    body: &[u8],
    now: DateTime<Utc>,
) -> bool {
    let Ok(at) = timestamp.trim().parse::<i64>() else {
        return false;
    };
    if (now.timestamp() - at).abs() > TOLERANCE_SECS {
        return false;
    }
    let Some(sig) = STANDARD
        .decode(signature_b64.trim())
        .ok()
        .and_then(|der| Signature::from_der(&der).ok())
    else {
        return false;
    };
    let mut signed = timestamp.trim().as_bytes().to_vec();
    signed.extend_from_slice(body);
    key.verify(&signed, &sig).is_ok()
}

/// The fields of an event this service reads (SendGrid sends many more).
#[derive(Debug, Deserialize)]
pub struct Event {
    pub email: Option<String>,
    pub event: Option<String>,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub reason: Option<String>,
    pub status: Option<String>,
    #[serde(rename = "smtp-id")]
    pub smtp_id: Option<String>,
}

impl Event {
    /// Whether this event suppresses its address, and as what.
    fn suppresses(&self) -> Option<ConsentSource> {
        match (self.event.as_deref()?, self.kind.as_deref()) {
            // `blocked` is a refusal of this attempt (a reputation or content block), not an
            // address that does not exist.
            ("bounce", None | Some("bounce")) => Some(ConsentSource::Bounce),
            ("dropped", _)
                if self
                    .reason
                    .as_deref()
                    .is_some_and(|r| r.to_ascii_lowercase().contains("bounced address")) =>
            {
                Some(ConsentSource::Bounce)
            }
            ("spamreport", _) => Some(ConsentSource::Complaint),
            _ => None,
        }
    }

    fn reason(&self, source: ConsentSource) -> String {
        let what = match source {
            ConsentSource::Complaint => "spam complaint",
            _ => "hard bounce",
        };
        match (self.status.as_deref(), self.reason.as_deref()) {
            (Some(s), Some(r)) => format!("{what}: {s} {r}"),
            (None, Some(r)) => format!("{what}: {r}"),
            (Some(s), None) => format!("{what}: {s}"),
            (None, None) => what.to_owned(),
        }
        .chars()
        .take(500)
        .collect()
    }
}

/// What a batch of events did.
#[derive(Debug, Default)]
pub struct Applied {
    pub suppressed: usize,
    /// Bounces and complaints whose mail this service did not send (or no longer keeps).
    pub unmatched: usize,
}

/// Suppresses every bounced or complained-of address, each in the workspace that mailed it.
pub async fn apply(st: &MessagingState, events: &[Event]) -> Result<Applied, DbErr> {
    let mut applied = Applied::default();
    let now = st.core.now();
    for e in events {
        let Some(source) = e.suppresses() else {
            continue;
        };
        let Some(mail) = mail_of(st, e).await? else {
            applied.unmatched += 1;
            continue;
        };
        let a = Address::of_recipient(Channel::Email, &mail.recipient);
        let cause = Cause {
            source,
            reason: e.reason(source),
            message_id: Some(mail.id),
        };
        let txn = crate::core::db::begin_write(&st.core.db).await?;
        let changed: Option<Emitted> = store::opt_out(&txn, now, mail.workspace_id, &a, &cause)
            .await?
            .map(|(_, emitted)| emitted);
        txn.commit().await?;
        if let Some(emitted) = changed {
            applied.suppressed += 1;
            emitted.notify(st);
        }
    }
    Ok(applied)
}

/// The outbound email an event reports on: by the Message-ID echoed as `smtp-id`, and only
/// when the event names that mail's recipient (a stray id never suppresses someone else).
async fn mail_of(st: &MessagingState, e: &Event) -> Result<Option<message::Model>, DbErr> {
    let (Some(id), Some(email)) = (e.smtp_id.as_deref(), e.email.as_deref()) else {
        return Ok(None);
    };
    let mail = message::Entity::find()
        .filter(message::Column::ProviderMessageId.eq(id.trim()))
        .filter(message::Column::Channel.eq("email"))
        .filter(message::Column::Direction.eq("outbound"))
        .one(&st.core.db)
        .await?;
    // Providers may report the address in another case than it was sent in.
    Ok(mail.filter(|m| m.recipient.eq_ignore_ascii_case(email.trim())))
}
