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
    pub kind: TransactionKind,
    pub status: TransactionStatus,
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

states! {
    /// What moved the money.
    pub enum TransactionKind {
        /// A poster's pay for an approved screenshot.
        Earning = "earning",
        /// A poster's money out.
        Withdrawal = "withdrawal",
        /// Money into an ad (a payment, an operator's grant).
        Deposit = "deposit",
        /// Money the payment provider gave back to the payer: a refund or a lost dispute.
        Refund = "refund",
        /// A dispute's hold on an ad's budget, and its release when the dispute is won.
        Dispute = "dispute",
    }
}

states! {
    /// A movement: pending while it holds money (a withdrawal, a dispute), then completed
    /// or cancelled.
    pub enum TransactionStatus {
        Pending = "pending",
        Completed = "completed",
        Cancelled = "cancelled",
    }
}

impl TransactionStatus {
    /// Only a pending movement settles, once.
    pub fn can_move_to(self, next: Self) -> bool {
        matches!(
            (self, next),
            (Self::Pending, Self::Completed | Self::Cancelled)
        )
    }
}
