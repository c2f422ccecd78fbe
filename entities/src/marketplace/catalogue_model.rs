use sea_orm::entity::prelude::*;

#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "marketplace_catalogue_models")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub make_id: Uuid,
    pub name: String,
    /// `name` in lower case, unique per make.
    pub name_key: String,
    /// The model's usual body type and fuel, the template's defaults (null when noted from a
    /// listing).
    pub body_type: Option<String>,
    pub fuel_type: Option<String>,
}

impl ActiveModelBehavior for ActiveModel {}
