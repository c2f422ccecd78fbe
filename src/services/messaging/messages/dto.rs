//! Wire shapes of the messaging service, named as the spec names them.

use crate::core::page::NumberedMeta;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use switchboard_entities::messaging::{delivery_attempt, ledger_entry, message, webhook};
use utoipa::ToSchema;
use uuid::Uuid;

use super::domain::credits_value;

/// `{success: true, data}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Success<T: ToSchema> {
    pub success: bool,
    pub data: T,
}

pub fn ok<T: ToSchema>(data: T) -> Success<T> {
    Success {
        success: true,
        data,
    }
}

/// `{success: false, error: "<code>", message}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorEnvelope {
    pub success: bool,
    /// validation_error, unauthorized, insufficient_credits, not_found, rate_limit_exceeded,
    /// idempotency_conflict, method_not_allowed, payload_too_large, unsupported_media_type,
    /// internal_error.
    pub error: String,
    pub message: String,
}

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

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WebhookCreate {
    /// http(s) URL of the receiver.
    #[schema(format = "uri", pattern = "^https?://", max_length = 2048)]
    pub url: String,
    /// Subscribed events; at least one, duplicates are dropped.
    #[schema(value_type = Vec<WebhookEventName>, min_items = 1)]
    pub events: Vec<String>,
    #[serde(default)]
    pub is_active: Option<bool>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WebhookUpdate {
    #[serde(default)]
    #[schema(format = "uri", pattern = "^https?://", max_length = 2048)]
    pub url: Option<String>,
    #[serde(default)]
    #[schema(value_type = Option<Vec<WebhookEventName>>, min_items = 1)]
    pub events: Option<Vec<String>>,
    /// Setting it back to true resets the failure count.
    #[serde(default)]
    pub is_active: Option<bool>,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DeliveriesQuery {
    /// Number of records, newest first (default 50, at most 1000).
    #[param(minimum = 1)]
    pub limit: Option<u64>,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LedgerQuery {
    /// Only the entries of this message (its debit and, if it failed, its refund).
    pub message_id: Option<Uuid>,
    /// `message` (a debit), `refund` or `grant`.
    #[param(value_type = Option<LedgerReason>, inline)]
    pub reason: Option<String>,
}

/// Why a workspace's balance moved.
#[derive(ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "lowercase")]
pub enum LedgerReason {
    Message,
    Refund,
    Grant,
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

#[derive(Debug, Serialize, ToSchema)]
pub struct Account {
    pub workspace_id: Uuid,
    pub name: String,
    #[schema(value_type = f64)]
    pub credits_balance: Value,
    #[schema(value_type = f64)]
    pub low_credit_threshold: Value,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TokenResponse {
    pub access_token: String,
    pub token_type: String,
    pub expires_in: i64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookView {
    pub id: Uuid,
    pub url: String,
    pub events: Vec<String>,
    pub is_active: bool,
    pub failure_count: i32,
    pub last_triggered_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<webhook::Model> for WebhookView {
    fn from(w: webhook::Model) -> Self {
        Self {
            id: w.id,
            url: w.url,
            events: serde_json::from_value(w.events).unwrap_or_default(),
            is_active: w.is_active,
            failure_count: w.failure_count,
            last_triggered_at: w.last_triggered_at,
            created_at: w.created_at,
            updated_at: w.updated_at,
        }
    }
}

/// A message's channel.
#[derive(ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "lowercase")]
pub enum ChannelName {
    Sms,
    Email,
    Whatsapp,
    Voice,
}

/// A message's status.
#[derive(ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "lowercase")]
pub enum MessageStatusName {
    Queued,
    Sent,
    Delivered,
    Failed,
    Received,
}

/// The events a webhook can subscribe to.
// Schema only: handlers parse the strings against `domain::EVENTS`.
#[derive(ToSchema)]
#[allow(dead_code)]
pub enum WebhookEventName {
    #[schema(rename = "message.sent")]
    MessageSent,
    #[schema(rename = "message.delivered")]
    MessageDelivered,
    #[schema(rename = "message.failed")]
    MessageFailed,
    #[schema(rename = "message.received")]
    MessageReceived,
    #[schema(rename = "credit.low")]
    CreditLow,
    #[schema(rename = "credit.depleted")]
    CreditDepleted,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookCreated {
    pub webhook: WebhookView,
    /// 64 hex characters; shown only now.
    pub secret: String,
    pub warning: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookData {
    pub webhook: WebhookView,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookList {
    pub webhooks: Vec<WebhookView>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Deleted {
    pub id: Uuid,
    pub deleted: bool,
}

/// One delivery attempt.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeliveryRecord {
    pub id: Uuid,
    /// The envelope id / X-Service-Delivery-ID, shared by the attempts of one delivery.
    pub delivery_id: Uuid,
    pub event_type: String,
    pub attempt: i32,
    /// HTTP status of the receiver; null when no response arrived.
    pub response_status: Option<i32>,
    /// First 1000 characters of the receiver's answer.
    pub response_body: Option<String>,
    pub error: Option<String>,
    pub delivered_at: DateTime<Utc>,
}

impl From<delivery_attempt::Model> for DeliveryRecord {
    fn from(a: delivery_attempt::Model) -> Self {
        Self {
            id: a.id,
            delivery_id: a.delivery_id,
            event_type: a.event_type,
            attempt: a.attempt,
            response_status: a.response_status,
            response_body: a.response_body,
            error: a.error,
            delivered_at: a.delivered_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Deliveries {
    pub deliveries: Vec<DeliveryRecord>,
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
            status: super::domain::Status::public(&m.status).to_owned(),
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

/// One change of the balance; the balance is the sum of all of them.
#[derive(Debug, Serialize, ToSchema)]
pub struct LedgerEntryView {
    pub id: Uuid,
    /// The message charged (`message`) or refunded (`refund`); null for a grant.
    pub message_id: Option<Uuid>,
    /// Credits: negative for a debit, positive for a refund or a grant.
    #[schema(value_type = f64)]
    pub amount: Value,
    #[schema(value_type = LedgerReason)]
    pub reason: String,
    pub created_at: DateTime<Utc>,
}

impl From<ledger_entry::Model> for LedgerEntryView {
    fn from(e: ledger_entry::Model) -> Self {
        Self {
            id: e.id,
            message_id: e.message_id,
            amount: credits_value(e.amount),
            reason: e.reason,
            created_at: e.created_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct LedgerList {
    pub entries: Vec<LedgerEntryView>,
    pub pagination: NumberedMeta,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MessageList {
    pub messages: Vec<MessageView>,
    pub pagination: NumberedMeta,
}
