use sea_orm::entity::prelude::*;

/// A payment provider's webhook event already handled: a replay changes nothing.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "advertising_payment_events")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub event_id: String,
    /// The event's type (`checkout.session.completed`, ...).
    pub kind: String,
    pub payment_id: Option<Uuid>,
    /// What handling it did (`funded`, `mismatch`, `expired`, `failed`, `ignored`, ...).
    pub outcome: String,
    pub received_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
