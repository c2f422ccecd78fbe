use sea_orm::entity::prelude::*;

/// One user's like of a car (at most one: the key).
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "marketplace_car_likes")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub car_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub user_id: Uuid,
    /// The UTC day of `created_at` (YYYY-MM-DD), for trending's per-day sums.
    pub day: String,
    pub created_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
