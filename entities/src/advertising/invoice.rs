use sea_orm::entity::prelude::*;

/// The invoice of a paid checkout; its PDF is kept in storage under `storage_key`.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "advertising_invoices")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    /// Readable and unique (`INV-20261127-7K3M9Q2P`).
    #[sea_orm(unique)]
    pub number: String,
    #[sea_orm(unique)]
    pub payment_id: Uuid,
    pub advertiser_id: Uuid,
    pub ad_id: Uuid,
    pub amount_cents: i64,
    pub currency: String,
    pub storage_key: String,
    pub issued_at: DateTimeUtc,
    /// When the `invoice-email` job mailed it.
    pub emailed_at: Option<DateTimeUtc>,
}

impl ActiveModelBehavior for ActiveModel {}
