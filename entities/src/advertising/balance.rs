use sea_orm::entity::prelude::*;

/// A ledger account's balance: the sum of its entries, kept as they are written.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "advertising_balances")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub account: String,
    pub cents: i64,
    pub updated_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
