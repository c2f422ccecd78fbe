use sea_orm::entity::prelude::*;

/// One event to deliver to one webhook; its id is the envelope id and the
/// X-Service-Delivery-ID header, stable across retries.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "messaging_webhook_deliveries")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub webhook_id: Uuid,
    pub workspace_id: Uuid,
    /// Orders deliveries to one endpoint (creation order, monotonic per process).
    pub seq: i64,
    pub event_type: String,
    /// Deliveries with the same key reach the endpoint in `seq` order; different keys are
    /// independent. `message:<id>` for a message's events, `event:<type>` for the others.
    pub order_key: String,
    /// The exact JSON body that is signed and sent.
    pub payload: String,
    pub status: DeliveryStatus,
    pub attempts: i32,
    pub next_attempt_at: DateTimeUtc,
    pub created_at: DateTimeUtc,
    pub completed_at: Option<DateTimeUtc>,
    /// The node whose attempt holds `next_attempt_at` as its lease, and when it began; none
    /// between attempts.
    pub attempt_owner: Option<String>,
    pub attempt_started_at: Option<DateTimeUtc>,
}

impl ActiveModelBehavior for ActiveModel {}

states! {
    /// An event's delivery: pending until it ends succeeded, failed or skipped (all final).
    pub enum DeliveryStatus {
        Pending = "pending",
        Succeeded = "succeeded",
        /// Given up after the retry policy's attempts.
        Failed = "failed",
        /// The webhook was missing or inactive when its turn came.
        Skipped = "skipped",
    }
}
