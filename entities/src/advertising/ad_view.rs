use sea_orm::entity::prelude::*;

/// A poster looked at an ad (`GET /ads/:id`) on `day` (UTC, `YYYY-MM-DD`): one row per
/// poster per day, so views count people, not reloads.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "advertising_ad_views")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub ad_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub poster_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub day: String,
}

impl ActiveModelBehavior for ActiveModel {}
