use sea_orm::entity::prelude::*;

#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "advertising_support_tickets")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub poster_id: Uuid,
    pub subject: String,
    pub category: String,
    pub screenshot_url: Option<String>,
    pub status: TicketStatus,
    pub closed_at: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}

states! {
    /// A ticket's state: open until closed; a closed ticket takes no more messages. Stored and
    /// answered as `open` / `closed`.
    pub enum TicketStatus {
        Open = "open",
        Closed = "closed",
    }
}
