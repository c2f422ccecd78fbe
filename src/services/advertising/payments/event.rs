//! A payment provider's event as the webhook reads it (Stripe's shape), and what handling
//! one did.

use serde::Deserialize;

#[derive(Debug, Deserialize)]
pub struct Event {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub data: EventData,
}

#[derive(Debug, Deserialize)]
pub struct EventData {
    pub object: Object,
}

/// The fields the handling reads of an event's object: a Checkout Session, a Charge or a
/// Dispute (what an object does not have parses to None).
#[derive(Debug, Deserialize, Default)]
#[serde(default)]
pub struct Object {
    pub id: Option<String>,
    /// A session's.
    pub amount_total: Option<i64>,
    pub currency: Option<String>,
    pub payment_status: Option<String>,
    pub client_reference_id: Option<String>,
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
    /// An id, or the PaymentIntent object when expanded.
    pub payment_intent: Option<serde_json::Value>,
    /// A charge's refunded total so far.
    pub amount_refunded: Option<i64>,
    /// A dispute's amount.
    pub amount: Option<i64>,
    /// A dispute's: `won`, `lost`, `needs_response`, ...
    pub status: Option<String>,
}

impl Object {
    pub fn payment_intent(&self) -> Option<&str> {
        match self.payment_intent.as_ref()? {
            serde_json::Value::String(s) => Some(s.as_str()),
            serde_json::Value::Object(o) => o.get("id").and_then(|v| v.as_str()),
            _ => None,
        }
        .filter(|s| !s.is_empty())
    }
}

pub use switchboard_entities::advertising::payment_event::EventOutcome as Outcome;
