use sea_orm::entity::prelude::*;

/// One share of a car, by a signed-in user or anonymously, on a channel if named.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "marketplace_car_shares")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub car_id: Uuid,
    pub user_id: Option<Uuid>,
    pub channel: Option<String>,
    pub created_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
