//! Wire shapes of /api/v1/messages, named as the spec names them.

use super::super::billing::domain::credits_value;
use crate::core::page::NumberedMeta;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use switchboard_entities::messaging::message;
use utoipa::ToSchema;
use uuid::Uuid;

// ---- requests ----

#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Content {
    /// SMS/WhatsApp/voice text (required there); plain-text part of an email.
    #[serde(default)]
    pub text: Option<String>,
    /// Email subject (required for email).
    #[serde(default)]
    pub subject: Option<String>,
    /// Email HTML part; email needs html or text.
    #[serde(default)]
    pub html: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SendRequest {
    /// E.164 phone number (sms, whatsapp, voice) or e-mail address (email).
    pub to: String,
    #[schema(value_type = ChannelName)]
    pub channel: String,
    pub content: Content,
    /// Email sender display name; the address is `<slug of name>@{mail_domain}`.
    #[serde(default)]
    pub from: Option<String>,
    /// Free key-value pairs kept with the message.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Value>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BulkRequest {
    #[schema(value_type = ChannelName)]
    pub channel: String,
    /// `text` (and for email `subject`, `html`) may hold `{{variable}}` placeholders.
    pub content: Content,
    /// At most 1000; each has `to` and any values for the placeholders.
    #[schema(value_type = Vec<Object>)]
    pub recipients: Vec<Map<String, Value>>,
    #[serde(default)]
    pub from: Option<String>,
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Value>,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MessagesQuery {
    #[param(value_type = Option<MessageStatusName>, inline)]
    pub status: Option<String>,
    #[param(value_type = Option<ChannelName>, inline)]
    pub channel: Option<String>,
}

// ---- responses ----

#[derive(Debug, Serialize, ToSchema)]
pub struct MessageCreated {
    pub message_id: Uuid,
    /// `queued` on creation.
    pub status: String,
    #[schema(value_type = f64)]
    pub credits_used: Value,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct BulkFailure {
    /// Position in `recipients`.
    pub index: usize,
    pub to: String,
    /// `validation_error` (the recipient or its rendered message is invalid) or
    /// `recipient_opted_out` (on the workspace's suppression list).
    pub code: &'static str,
    pub reason: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct BulkResult {
    pub queued: usize,
    pub failed: usize,
    pub message_ids: Vec<Uuid>,
    #[schema(value_type = f64)]
    pub credits_used: Value,
    pub failures: Vec<BulkFailure>,
}

/// A message's channel.
#[derive(ToSchema)]
#[expect(dead_code, reason = "an OpenAPI schema only: described, never built")]
#[schema(rename_all = "lowercase")]
pub enum ChannelName {
    Sms,
    Email,
    Whatsapp,
    Voice,
}

/// A message's status.
#[derive(ToSchema)]
#[expect(dead_code, reason = "an OpenAPI schema only: described, never built")]
#[schema(rename_all = "lowercase")]
pub enum MessageStatusName {
    Queued,
    Sent,
    Delivered,
    Failed,
    Received,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MessageView {
    pub message_id: Uuid,
    /// outbound or inbound.
    pub direction: String,
    pub channel: String,
    pub to: String,
    pub from: Option<String>,
    pub subject: Option<String>,
    pub text: Option<String>,
    pub html: Option<String>,
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Value>,
    /// queued, sent, delivered, failed (outbound) or received (inbound).
    pub status: String,
    #[schema(value_type = f64)]
    pub credits_used: Value,
    pub segments: i32,
    pub provider_message_id: Option<String>,
    pub error_code: Option<String>,
    pub error_message: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub sent_at: Option<DateTime<Utc>>,
    pub delivered_at: Option<DateTime<Utc>>,
    pub failed_at: Option<DateTime<Utc>>,
}

impl From<message::Model> for MessageView {
    fn from(m: message::Model) -> Self {
        Self {
            message_id: m.id,
            direction: m.direction,
            channel: m.channel,
            to: m.recipient,
            from: m.sender,
            subject: m.subject,
            text: m.text,
            html: m.html,
            metadata: m.metadata,
            status: m.status.public().to_string(),
            credits_used: credits_value(m.cost),
            segments: m.segments,
            provider_message_id: m.provider_message_id,
            error_code: m.error_code,
            error_message: m.error_message,
            created_at: m.created_at,
            updated_at: m.updated_at,
            sent_at: m.sent_at,
            delivered_at: m.delivered_at,
            failed_at: m.failed_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MessageList {
    pub messages: Vec<MessageView>,
    pub pagination: NumberedMeta,
}
