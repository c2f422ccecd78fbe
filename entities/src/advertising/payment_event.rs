use sea_orm::entity::prelude::*;

/// A payment provider's webhook event already handled: a replay changes nothing.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "advertising_payment_events")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub event_id: String,
    pub kind: EventKind,
    pub payment_id: Option<Uuid>,
    pub outcome: EventOutcome,
    pub received_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}

/// The provider's event type: the ones the webhook handles by name, any other kept as sent
/// (the provider's list is open, and an unknown type is still recorded).
#[derive(Clone, Debug, PartialEq, Eq, Hash, DeriveValueType)]
#[sea_orm(
    value_type = "String",
    from_str = "EventKind::from_stored",
    to_str = "EventKind::to_stored"
)]
pub enum EventKind {
    CheckoutCompleted,
    AsyncPaymentSucceeded,
    CheckoutExpired,
    AsyncPaymentFailed,
    ChargeRefunded,
    DisputeCreated,
    DisputeClosed,
    /// A type the webhook does not handle, as the provider named it.
    Other(String),
}

impl EventKind {
    /// The handled types, in the order of the enum.
    pub const HANDLED: [Self; 7] = [
        Self::CheckoutCompleted,
        Self::AsyncPaymentSucceeded,
        Self::CheckoutExpired,
        Self::AsyncPaymentFailed,
        Self::ChargeRefunded,
        Self::DisputeCreated,
        Self::DisputeClosed,
    ];

    pub fn as_str(&self) -> &str {
        match self {
            Self::CheckoutCompleted => "checkout.session.completed",
            Self::AsyncPaymentSucceeded => "checkout.session.async_payment_succeeded",
            Self::CheckoutExpired => "checkout.session.expired",
            Self::AsyncPaymentFailed => "checkout.session.async_payment_failed",
            Self::ChargeRefunded => "charge.refunded",
            Self::DisputeCreated => "charge.dispute.created",
            Self::DisputeClosed => "charge.dispute.closed",
            Self::Other(kind) => kind,
        }
    }

    /// Any type reads as one: a handled type by name, the rest as `Other`.
    pub fn parse(kind: &str) -> Self {
        Self::HANDLED
            .into_iter()
            .find(|k| k.as_str() == kind)
            .unwrap_or_else(|| Self::Other(kind.to_owned()))
    }

    pub fn is_handled(&self) -> bool {
        !matches!(self, Self::Other(_))
    }

    /// A charge's event (a refund, a dispute, or another the webhook ignores), found by the
    /// charge's PaymentIntent rather than a session.
    pub fn is_charge(&self) -> bool {
        self.as_str().starts_with("charge.")
    }

    fn from_stored(kind: &str) -> Result<Self, std::convert::Infallible> {
        Ok(Self::parse(kind))
    }

    fn to_stored(&self) -> String {
        self.as_str().to_owned()
    }
}

impl std::fmt::Display for EventKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

states! {
    /// What handling an event did (kept with its id, and answered).
    pub enum EventOutcome {
        /// The row's outcome while its handling runs, in the same database transaction
        /// that then writes the real one: never committed.
        Handling = "",
        Funded = "funded",
        Mismatch = "mismatch",
        Expired = "expired",
        Failed = "failed",
        /// A completed session still waiting for its money (`payment_status` not `paid`).
        Unpaid = "unpaid",
        /// The payment was settled before (by another event).
        Settled = "settled",
        UnknownPayment = "unknown_payment",
        /// Part or all of a paid payment given back.
        Refunded = "refunded",
        /// A dispute opened: the ad paused, its free budget held.
        Disputed = "disputed",
        DisputeWon = "dispute_won",
        DisputeLost = "dispute_lost",
        Ignored = "ignored",
        /// The event id was handled before: nothing changed (answered, never stored).
        Replay = "replay",
    }
}
