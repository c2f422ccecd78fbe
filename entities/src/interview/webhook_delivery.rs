use sea_orm::entity::prelude::*;

/// A completion notification to deliver; a row before the first attempt, so a restart
/// resumes pending deliveries.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "interview_webhook_deliveries")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub session_id: Uuid,
    pub url: String,
    pub body: String,
    /// The v1 signature (`HMAC(secret, body)`), fixed at queue time.
    pub signature: Option<String>,
    /// The session's X-Webhook-Secret, to sign `"{timestamp}.{body}"` at each attempt.
    pub secret: Option<String>,
    pub status: DeliveryStatus,
    pub attempts: i32,
    pub last_error: Option<String>,
    pub last_status: Option<i32>,
    pub created_at: DateTimeUtc,
    pub delivered_at: Option<DateTimeUtc>,
    /// When a pending row is next due (while an attempt is in flight: when its claim lapses).
    /// Always set; the column is nullable only because it was added to existing rows.
    pub next_attempt_at: Option<DateTimeUtc>,
}

impl ActiveModelBehavior for ActiveModel {}

states! {
    /// A completion notification's state: pending until delivered or failed, both final.
    pub enum DeliveryStatus {
        Pending = "pending",
        Delivered = "delivered",
        /// Given up after `max_attempts`.
        Failed = "failed",
    }
}
