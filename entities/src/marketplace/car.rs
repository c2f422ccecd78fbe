use sea_orm::entity::prelude::*;

/// A car listing. `make_key`/`model_key` are the lowercased make and model the exact filters
/// compare; `features_text` is the features as words, for the full-text index; the counters are kept on the row
/// by the interactions that move them.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "marketplace_cars")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub seller_id: Uuid,
    /// dealer or private.
    pub seller_type: String,
    pub make: String,
    pub model: String,
    pub make_key: String,
    pub model_key: String,
    pub year: i32,
    pub price: f64,
    pub mileage: i64,
    pub fuel_type: String,
    pub transmission: String,
    pub body_type: String,
    pub color: String,
    pub description: String,
    pub images: Json,
    pub videos: Json,
    pub features: Json,
    pub condition: String,
    /// active, sold or reserved.
    pub status: String,
    pub features_text: String,
    pub view_count: i64,
    pub like_count: i64,
    pub comment_count: i64,
    pub share_count: i64,
    pub favorite_count: i64,
    pub inquiry_count: i64,
    /// When the status last became sold (dealer statistics count sales by month).
    pub sold_at: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
