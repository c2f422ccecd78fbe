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
    pub status: PaymentStatus,
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
    /// The provider's PaymentIntent (`pi_…`), from the completed session: refunds and
    /// disputes name it.
    pub payment_intent: Option<String>,
    /// Refunded so far (the provider's cumulative `amount_refunded`; a lost dispute too).
    pub refunded_cents: i64,
    /// What an open dispute holds of the ad's budget.
    pub held_cents: i64,
    pub dispute_id: Option<String>,
    /// None when never disputed.
    pub dispute_status: Option<DisputeStatus>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}

states! {
    /// A checkout: pending until the provider settles it paid, failed or expired; a paid one
    /// becomes refunded once all of it is given back.
    pub enum PaymentStatus {
        Pending = "pending",
        Paid = "paid",
        /// All of it given back.
        Refunded = "refunded",
        Failed = "failed",
        Expired = "expired",
    }
}

impl PaymentStatus {
    /// The money came in (some or all of it may have gone back since).
    pub fn took_money(self) -> bool {
        matches!(self, Self::Paid | Self::Refunded)
    }

    /// A pending checkout is settled once; a paid one is refunded (or a partial refund
    /// undone by the provider's cumulative total).
    pub fn can_move_to(self, next: Self) -> bool {
        match self {
            Self::Pending => matches!(next, Self::Paid | Self::Failed | Self::Expired),
            Self::Paid | Self::Refunded => next.took_money(),
            Self::Failed | Self::Expired => false,
        }
    }
}

states! {
    /// A payment's dispute: open (its hold kept from the ad) until the provider closes it
    /// won or lost.
    pub enum DisputeStatus {
        Open = "open",
        Won = "won",
        Lost = "lost",
    }
}
