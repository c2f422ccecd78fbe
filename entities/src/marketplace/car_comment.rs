use sea_orm::entity::prelude::*;

/// A comment on a car with its rating, or a reply (`parent_id`, no rating) to one.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "marketplace_car_comments")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub car_id: Uuid,
    pub user_id: Uuid,
    /// The top-level comment a reply belongs to.
    pub parent_id: Option<Uuid>,
    pub text: String,
    /// 1 to 5 on a comment; none on a reply.
    pub rating: Option<i32>,
    pub like_count: i64,
    pub created_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
