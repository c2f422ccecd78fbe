use sea_orm::entity::prelude::*;

/// One HTTP attempt of a delivery: the spec's "webhook delivery record".
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "messaging_delivery_attempts")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub delivery_id: Uuid,
    pub webhook_id: Uuid,
    pub event_type: String,
    pub attempt: i32,
    pub response_status: Option<i32>,
    /// Truncated to 1000 characters.
    pub response_body: Option<String>,
    pub error: Option<String>,
    pub duration_ms: i64,
    pub delivered_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
