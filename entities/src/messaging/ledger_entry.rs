use sea_orm::entity::prelude::*;

/// Every change of a workspace balance: negative for debits, positive for credits/refunds.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "messaging_ledger_entries")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub workspace_id: Uuid,
    pub message_id: Option<Uuid>,
    /// Hundredths of a credit; negative is a debit.
    pub amount: i64,
    /// `message`, `refund`, `grant`.
    pub reason: String,
    pub created_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
