//! Customer events: one delivery row per subscribed active webhook, written in the caller's
//! transaction; the webhook actors are told only after it commits. Each row carries an
//! ordering key: a message's events (`message:<id>`) reach an endpoint in the order they
//! happened; events without a message (`event:<type>`, credit.low, credit.depleted) are ordered
//! among those of their type; different keys never wait for each other.

use super::super::state::MessagingState;
use chrono::{DateTime, Utc};
use sea_orm::{ColumnTrait, ConnectionTrait, DbErr, EntityTrait, QueryFilter, QuerySelect, Set};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicI64, Ordering};
use switchboard_actors::Enqueue;
use switchboard_entities::messaging::message::MessageStatus;
use switchboard_entities::messaging::{webhook, webhook_delivery};
use uuid::Uuid;

/// Deliveries written in a transaction, to hand to their actors once it commits.
#[derive(Debug, Default)]
#[must_use = "notify the webhook actors after the transaction commits"]
pub struct Emitted(Vec<(Uuid, Enqueue)>);

impl Emitted {
    pub fn extend(&mut self, other: Emitted) {
        self.0.extend(other.0);
    }

    pub fn notify(self, st: &MessagingState) {
        for (webhook_id, delivery) in self.0 {
            st.webhooks.enqueue(webhook_id, delivery);
        }
    }
}

static SEQ: AtomicI64 = AtomicI64::new(0);

/// A per-process monotonic sequence, seeded from wall-clock microseconds so it also grows
/// across restarts: it orders the deliveries of one endpoint.
fn next_seq() -> i64 {
    let wall = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as i64);
    let mut cur = SEQ.load(Ordering::Relaxed);
    loop {
        let next = (cur + 1).max(wall);
        match SEQ.compare_exchange_weak(cur, next, Ordering::SeqCst, Ordering::Relaxed) {
            Ok(_) => return next,
            Err(actual) => cur = actual,
        }
    }
}

/// `data` of a message event: the fields every carrier-driven event carries (spec:
/// message_id, channel, recipient, status, error_code, error_message, timestamp in ISO 8601;
/// null where there is no value), then the event's own fields.
pub fn message_data(
    message_id: Uuid,
    channel: &str,
    recipient: &str,
    status: MessageStatus,
    error: Option<(&str, &str)>,
    now: DateTime<Utc>,
    own: Value,
) -> Value {
    let mut data = json!({
        "message_id": message_id,
        "channel": channel,
        "recipient": recipient,
        "status": status.public(),
        "error_code": error.map(|e| e.0),
        "error_message": error.map(|e| e.1),
        "timestamp": now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
    });
    if let (Some(data), Value::Object(own)) = (data.as_object_mut(), own) {
        data.extend(own);
    }
    data
}

/// The delivery's ordering key: a contact's consent changes in the order they happened
/// (opt-out, then opt-in), a message's events likewise, else its event type's.
pub fn order_key(event: &str, data: &Value) -> String {
    if event.starts_with("contact.") {
        let (channel, address) = (data["channel"].as_str(), data["address"].as_str());
        return format!(
            "contact:{}:{}",
            channel.unwrap_or(""),
            address.unwrap_or("")
        );
    }
    match data["message_id"].as_str() {
        Some(id) => format!("message:{id}"),
        None => format!("event:{event}"),
    }
}

/// Above every earlier delivery with the same key to this webhook, even one another node wrote
/// with a clock behind this one's.
async fn seq_for<C: ConnectionTrait>(db: &C, webhook_id: Uuid, key: &str) -> Result<i64, DbErr> {
    let last: Option<Option<i64>> = webhook_delivery::Entity::find()
        .select_only()
        .column_as(webhook_delivery::Column::Seq.max(), "seq")
        .filter(webhook_delivery::Column::WebhookId.eq(webhook_id))
        .filter(webhook_delivery::Column::OrderKey.eq(key))
        .into_tuple()
        .one(db)
        .await?;
    let seq = next_seq();
    Ok(match last.flatten() {
        Some(last) if last >= seq => last + 1,
        _ => seq,
    })
}

pub fn subscribes(hook: &webhook::Model, event: &str) -> bool {
    hook.events
        .as_array()
        .is_some_and(|a| a.iter().any(|e| e.as_str() == Some(event)))
}

/// Writes one delivery of `event` for every active webhook of the workspace subscribed to it.
pub async fn emit<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    workspace_id: Uuid,
    event: &str,
    data: Value,
) -> Result<Emitted, DbErr> {
    let hooks = webhook::Entity::find()
        .filter(webhook::Column::WorkspaceId.eq(workspace_id))
        .filter(webhook::Column::IsActive.eq(true))
        .all(db)
        .await?;
    let mut out = Emitted::default();
    let key = order_key(event, &data);
    for hook in hooks.into_iter().filter(|h| subscribes(h, event)) {
        let id = Uuid::new_v4();
        let seq = seq_for(db, hook.id, &key).await?;
        let payload = json!({
            "id": id,
            "type": event,
            "created_at": now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            "data": data,
        })
        .to_string();
        webhook_delivery::Entity::insert(webhook_delivery::ActiveModel {
            id: Set(id),
            webhook_id: Set(hook.id),
            workspace_id: Set(workspace_id),
            seq: Set(seq),
            event_type: Set(event.to_owned()),
            order_key: Set(key.clone()),
            payload: Set(payload),
            status: Set(webhook_delivery::DeliveryStatus::Pending),
            attempts: Set(0),
            next_attempt_at: Set(now),
            created_at: Set(now),
            completed_at: Set(None),
            attempt_owner: Set(None),
            attempt_started_at: Set(None),
        })
        .exec_without_returning(db)
        .await?;
        out.0.push((
            hook.id,
            Enqueue {
                delivery_id: id,
                seq,
                order_key: key.clone(),
                not_before: now,
            },
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_data_has_the_common_fields_then_the_events_own() {
        let id = Uuid::nil();
        let now = DateTime::from_timestamp(1_700_000_000, 0).unwrap_or_default();
        let d = message_data(
            id,
            "sms",
            "+1",
            MessageStatus::Delivered,
            None,
            now,
            json!({"x": 1}),
        );
        assert_eq!(d["error_code"], Value::Null);
        assert_eq!(d["timestamp"], "2023-11-14T22:13:20.000Z");
        assert_eq!(d["x"], 1);
        assert_eq!(order_key("message.delivered", &d), format!("message:{id}"));
        assert_eq!(order_key("credit.low", &json!({})), "event:credit.low");
    }
}
