use sea_orm::entity::prelude::*;

/// A lowercased word of a listed make, model or feature: the vocabulary typo-tolerant search
/// corrects query words to.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "marketplace_search_terms")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub term: String,
}

impl ActiveModelBehavior for ActiveModel {}
