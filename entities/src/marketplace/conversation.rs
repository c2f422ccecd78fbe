use sea_orm::entity::prelude::*;

/// Direct messages between two users; the pair is stored ordered (`user_a < user_b`).
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "marketplace_conversations")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub user_a: Uuid,
    pub user_b: Uuid,
    /// The sequence number of the latest message (0 before the first).
    pub last_seq: i64,
    pub last_message_id: Option<Uuid>,
    pub last_message_at: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
}

impl Model {
    /// The participant who is not `me`.
    pub fn other(&self, me: Uuid) -> Uuid {
        if self.user_a == me {
            self.user_b
        } else {
            self.user_a
        }
    }
}

impl ActiveModelBehavior for ActiveModel {}
