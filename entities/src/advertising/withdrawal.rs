use sea_orm::entity::prelude::*;

#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "advertising_withdrawals")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub poster_id: Uuid,
    pub transaction_id: Uuid,
    pub amount_cents: i64,
    pub payment_method_id: String,
    /// `pending`, `paid` or `cancelled`.
    pub status: String,
    pub reference: Option<String>,
    pub processed_at: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
