use sea_orm::entity::prelude::*;

/// A customer endpoint that receives signed event callbacks.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "messaging_webhooks")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub workspace_id: Uuid,
    pub url: String,
    /// JSON array of subscribed event names.
    pub events: Json,
    /// SHA-256 hex digest of the secret; it is also the signing key.
    pub secret_hash: String,
    pub is_active: bool,
    pub failure_count: i32,
    pub last_triggered_at: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
