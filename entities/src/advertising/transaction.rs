use sea_orm::entity::prelude::*;

/// One movement of money, balanced by its ledger entries.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "advertising_transactions")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    /// Readable and unique (`TX-7K3M9Q2P`).
    #[sea_orm(unique)]
    pub code: String,
    /// `earning`, `withdrawal`, `deposit`, ...
    pub kind: String,
    /// `pending`, `completed` or `cancelled`.
    pub status: String,
    pub amount_cents: i64,
    pub poster_id: Option<Uuid>,
    pub advertiser_id: Option<Uuid>,
    pub ad_id: Option<Uuid>,
    pub screenshot_id: Option<Uuid>,
    pub description: String,
    /// Makes a movement happen once (`earning:<screenshot id>`).
    #[sea_orm(unique)]
    pub idempotency_key: Option<String>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
