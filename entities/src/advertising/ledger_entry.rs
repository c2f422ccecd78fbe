use sea_orm::entity::prelude::*;

/// One side of a transaction: the entries of a transaction sum to zero.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "advertising_ledger_entries")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub transaction_id: Uuid,
    /// `poster:<id>:available`, `ad:<id>`, `external:payouts`, ...
    pub account: String,
    pub amount_cents: i64,
    pub created_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
