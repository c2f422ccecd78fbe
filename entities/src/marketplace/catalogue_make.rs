use sea_orm::entity::prelude::*;

#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "marketplace_catalogue_makes")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub name: String,
    /// `name` in lower case: one make whatever the case it is written in.
    #[sea_orm(unique)]
    pub name_key: String,
}

impl ActiveModelBehavior for ActiveModel {}
