use sea_orm::entity::prelude::*;

/// A customer's review of a dealer (one per customer and dealer).
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "marketplace_dealer_reviews")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub dealer_id: Uuid,
    pub author_id: Uuid,
    /// 1 to 5.
    pub rating: i16,
    pub comment: String,
    pub created_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
