//! Wire shapes of /api/v1/webhooks and their deliveries.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use switchboard_entities::messaging::{delivery_attempt, webhook};
use utoipa::ToSchema;
use uuid::Uuid;

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

/// The events a webhook can subscribe to.
// Schema only: handlers parse the strings against `domain::EVENTS`.
#[derive(ToSchema)]
#[expect(dead_code, reason = "an OpenAPI schema only: described, never built")]
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
    /// A recipient opted out (STOP, an unsubscribe link, a bounce, a complaint, the API).
    #[schema(rename = "contact.opted_out")]
    ContactOptedOut,
    /// A recipient opted back in (START, or the API removing the suppression).
    #[schema(rename = "contact.opted_in")]
    ContactOptedIn,
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
