use sea_orm::entity::prelude::*;

/// One direct message; `seq` orders a conversation's messages exactly (1, 2, 3…).
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "marketplace_messages")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub conversation_id: Uuid,
    pub seq: i64,
    pub sender_id: Uuid,
    pub receiver_id: Uuid,
    pub text: String,
    pub created_at: DateTimeUtc,
    /// When the receiver read it; unread while None.
    pub read_at: Option<DateTimeUtc>,
}

impl ActiveModelBehavior for ActiveModel {}
