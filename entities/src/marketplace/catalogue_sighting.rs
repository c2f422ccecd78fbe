use sea_orm::entity::prelude::*;

/// A verified seller listed a make (and model) the public catalogue does not hold yet; keys
/// in lower case. Enough distinct sellers bring the name into the catalogue.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "marketplace_catalogue_sightings")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub make_key: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub model_key: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub seller_id: Uuid,
    pub created_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
