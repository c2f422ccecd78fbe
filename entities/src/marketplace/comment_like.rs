use sea_orm::entity::prelude::*;

/// One user's like of a comment (at most one: the key).
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "marketplace_comment_likes")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub comment_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub user_id: Uuid,
    pub created_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
