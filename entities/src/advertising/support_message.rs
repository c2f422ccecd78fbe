use sea_orm::entity::prelude::*;

#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "advertising_support_messages")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub ticket_id: Uuid,
    pub author_kind: AuthorKind,
    pub author_id: Uuid,
    pub body: String,
    pub created_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}

states! {
    /// Who wrote a ticket's message: its poster or staff.
    pub enum AuthorKind {
        Poster = "poster",
        Admin = "admin",
    }
}
