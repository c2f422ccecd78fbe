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
    pub status: WithdrawalStatus,
    pub reference: Option<String>,
    pub processed_at: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}

states! {
    /// A withdrawal: pending until finance pays it or cancels it (its hold given back).
    pub enum WithdrawalStatus {
        Pending = "pending",
        Paid = "paid",
        Cancelled = "cancelled",
    }
}

impl WithdrawalStatus {
    /// Only a pending withdrawal is processed, and processing ends it.
    pub fn can_move_to(self, next: Self) -> bool {
        matches!((self, next), (Self::Pending, Self::Paid | Self::Cancelled))
    }
}
