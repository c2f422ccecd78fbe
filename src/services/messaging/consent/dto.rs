//! Wire shapes of the suppression list, a contact's consent history and the workspace's
//! keyword answers.

use super::domain::Address;
use crate::core::page::NumberedMeta;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use switchboard_entities::messaging::consent_event::{self, ConsentAction};
use switchboard_entities::messaging::suppression::{self, ConsentSource};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SuppressionQuery {
    /// Only this channel's: `sms`, `whatsapp`, `voice` or `email`.
    pub channel: Option<String>,
}

/// A contact in a path: `/api/v1/suppressions/{channel}/{address}`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct ContactPath {
    /// `sms`, `whatsapp`, `voice` or `email`.
    pub channel: String,
    /// The phone number or e-mail address.
    pub address: String,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct SuppressionCreate {
    /// `sms`, `whatsapp`, `voice` or `email`.
    pub channel: String,
    /// A phone number (E.164; spaces, dashes, dots and brackets are dropped) or an e-mail
    /// address (its domain compared case-insensitively).
    pub address: String,
    /// Why, for the audit trail (at most 500 characters).
    pub reason: Option<String>,
}

/// How a suppression or a re-subscription came about.
#[derive(ToSchema)]
#[expect(dead_code, reason = "an OpenAPI schema only: described, never built")]
#[schema(rename_all = "lowercase")]
pub enum SourceName {
    Keyword,
    Link,
    Api,
    Bounce,
    Complaint,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct SuppressionView {
    pub id: Uuid,
    pub channel: String,
    pub address: String,
    #[schema(value_type = SourceName)]
    pub source: ConsentSource,
    pub reason: String,
    /// The message that caused it (the STOP texted in, the bounced email); null otherwise.
    pub message_id: Option<Uuid>,
    pub created_at: DateTime<Utc>,
}

impl From<suppression::Model> for SuppressionView {
    fn from(s: suppression::Model) -> Self {
        Self {
            id: s.id,
            channel: s.channel,
            address: s.address,
            source: s.source,
            reason: s.reason,
            message_id: s.message_id,
            created_at: s.created_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct SuppressionList {
    pub suppressions: Vec<SuppressionView>,
    pub pagination: NumberedMeta,
}

#[derive(ToSchema)]
#[expect(dead_code, reason = "an OpenAPI schema only: described, never built")]
#[schema(rename_all = "snake_case")]
pub enum ActionName {
    OptedOut,
    OptedIn,
}

/// One change of a contact's consent.
#[derive(Debug, Serialize, ToSchema)]
pub struct ConsentChange {
    #[schema(value_type = ActionName)]
    pub action: ConsentAction,
    #[schema(value_type = SourceName)]
    pub source: ConsentSource,
    pub reason: String,
    pub message_id: Option<Uuid>,
    pub at: DateTime<Utc>,
}

impl From<consent_event::Model> for ConsentChange {
    fn from(e: consent_event::Model) -> Self {
        Self {
            action: e.action,
            source: e.source,
            reason: e.reason,
            message_id: e.message_id,
            at: e.created_at,
        }
    }
}

/// A contact's consent now and how it came to be.
#[derive(Debug, Serialize, ToSchema)]
pub struct ContactConsent {
    pub channel: String,
    pub address: String,
    /// Whether sends to it are refused now.
    pub suppressed: bool,
    pub suppression: Option<SuppressionView>,
    /// Every change, oldest first.
    pub history: Vec<ConsentChange>,
}

impl ContactConsent {
    pub fn of(
        a: Address,
        suppression: Option<suppression::Model>,
        history: Vec<consent_event::Model>,
    ) -> Self {
        Self {
            channel: a.channel.as_str().to_owned(),
            address: a.address,
            suppressed: suppression.is_some(),
            suppression: suppression.map(Into::into),
            history: history.into_iter().map(Into::into).collect(),
        }
    }
}

/// The answers texted to STOP, START and HELP, and the mailbox bulk mail names for
/// unsubscribing. Null (or absent) keeps the service's default.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ConsentSettings {
    pub opt_out_reply: Option<String>,
    pub opt_in_reply: Option<String>,
    pub help_reply: Option<String>,
    /// An address for `mailto:` in `List-Unsubscribe`, beside the one-click link.
    pub unsubscribe_mailbox: Option<String>,
}

/// What a batch of provider events did.
#[derive(Debug, Serialize, ToSchema)]
pub struct EventsApplied {
    /// Events in the batch.
    pub events: usize,
    /// Addresses newly suppressed (an address already suppressed is not counted again).
    pub suppressed: usize,
    /// Bounces and complaints about mail this service did not send.
    pub unmatched: usize,
}
