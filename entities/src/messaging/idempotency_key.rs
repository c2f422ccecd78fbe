use sea_orm::entity::prelude::*;

/// The first successful answer to a request carrying an Idempotency-Key, replayed for repeats.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "messaging_idempotency_keys")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub workspace_id: Uuid,
    pub key: String,
    /// SHA-256 of the endpoint and the canonical request body.
    pub request_hash: String,
    pub response_status: i32,
    pub response_body: String,
    pub created_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
