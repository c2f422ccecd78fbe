use sea_orm::entity::prelude::*;

/// The views of one car by one viewer on one UTC day: one row, counted once.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "marketplace_car_views")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub car_id: Uuid,
    /// `u:<user id>` when signed in, else `a:<keyed hash of the client address>`.
    #[sea_orm(primary_key, auto_increment = false)]
    pub viewer: String,
    /// YYYY-MM-DD, UTC.
    #[sea_orm(primary_key, auto_increment = false)]
    pub day: String,
    pub user_id: Option<Uuid>,
    /// The latest view of that day.
    pub viewed_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
