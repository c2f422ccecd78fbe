use sea_orm::entity::prelude::*;

/// An approved dealer's public profile; `user_id` is the dealer's id.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "marketplace_dealer_profiles")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub user_id: Uuid,
    pub name: String,
    pub location: String,
    /// `{monday: "09:00-18:00", …, sunday: "Closed"}`; null until the dealer sets them.
    pub business_hours: Option<Json>,
    pub website: Option<String>,
    pub description: Option<String>,
    pub business_phone: Option<String>,
    /// Whether `GET /dealers` may show the login phone when no business phone is set.
    pub publish_login_phone: bool,
    /// Sum of the review ratings; the average is `rating_sum / review_count`.
    pub rating_sum: i64,
    pub review_count: i32,
    pub total_sales: i32,
    /// When the application was approved.
    pub joined_date: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
