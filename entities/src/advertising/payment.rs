use sea_orm::entity::prelude::*;

/// A checkout funding an ad: the amount is fixed when it is made (the ad's unfunded budget
/// then); the provider's webhook settles it.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "advertising_payments")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub advertiser_id: Uuid,
    pub ad_id: Uuid,
    /// `sandbox` or `stripe`.
    pub provider: String,
    /// The provider's checkout session id (None while it is being asked).
    #[sea_orm(unique)]
    pub session_id: Option<String>,
    pub checkout_url: Option<String>,
    /// `pending`, `paid`, `failed` or `expired`.
    pub status: String,
    pub amount_cents: i64,
    /// ISO 4217, lowercase (`usd`).
    pub currency: String,
    pub success_url: String,
    pub cancel_url: String,
    /// Why a completed session funded nothing (an amount or currency mismatch).
    pub problem: Option<String>,
    /// The deposit that funded the ad.
    pub transaction_id: Option<Uuid>,
    pub paid_at: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
