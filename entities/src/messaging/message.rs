use sea_orm::entity::prelude::*;

/// One outbound message to one recipient, or one inbound message from the carrier.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "messaging_messages")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub workspace_id: Uuid,
    /// `outbound` or `inbound`.
    pub direction: String,
    /// sms, email, whatsapp or voice.
    pub channel: String,
    pub recipient: String,
    /// Email: `Name <address>`; SMS inbound: the sender's number; otherwise null.
    pub sender: Option<String>,
    pub subject: Option<String>,
    pub text: Option<String>,
    pub html: Option<String>,
    pub metadata: Option<Json>,
    pub status: MessageStatus,
    /// Hundredths of a credit.
    pub cost: i64,
    pub segments: i32,
    pub provider_message_id: Option<String>,
    pub error_code: Option<String>,
    pub error_message: Option<String>,
    /// Set for messages created by one bulk request.
    pub bulk_id: Option<Uuid>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
    pub sent_at: Option<DateTimeUtc>,
    pub delivered_at: Option<DateTimeUtc>,
    pub failed_at: Option<DateTimeUtc>,
    /// While `sending`: when the claim lapses and another node may retake the message.
    pub claim_expires_at: Option<DateTimeUtc>,
    /// Claims taken on this message (a retaken claim counts again).
    pub attempts: i32,
    /// The node holding (or last holding) the claim.
    pub claimed_by: Option<String>,
}

impl ActiveModelBehavior for ActiveModel {}

states! {
    /// Where a message is. Outbound: queued → sending (claimed for its provider call) → sent →
    /// delivered, or failed from any of those; a carrier may report delivered or failed of a
    /// message not yet seen as sent, and no move goes backwards. Inbound: received, which
    /// nothing moves.
    pub enum MessageStatus {
        Queued = "queued",
        /// Internal: claimed by the node in `claimed_by` until `claim_expires_at`; the API
        /// shows it as `queued` (responses, list filters, webhooks).
        Sending = "sending",
        Sent = "sent",
        Delivered = "delivered",
        Failed = "failed",
        /// An inbound message.
        Received = "received",
    }
}

impl MessageStatus {
    /// The states a message may be in for a move to `self` to go forward: a claim takes a
    /// queued message (or retakes one whose claim lapsed); `sending` counts as `queued` for
    /// every later move. Nothing moves a message to `queued` or `received`: it is written so.
    pub const fn comes_from(self) -> &'static [Self] {
        match self {
            Self::Queued | Self::Received => &[],
            Self::Sending => &[Self::Queued, Self::Sending],
            Self::Sent => &[Self::Queued, Self::Sending],
            Self::Delivered | Self::Failed => &[Self::Queued, Self::Sending, Self::Sent],
        }
    }

    pub fn can_move_to(self, next: Self) -> bool {
        next.comes_from().contains(&self)
    }

    /// The status the API shows for this stored one: `sending` reads as `queued`.
    pub const fn public(self) -> Self {
        match self {
            Self::Sending => Self::Queued,
            other => other,
        }
    }

    /// Whether the API shows this status (every one but the internal `sending`).
    pub const fn is_public(self) -> bool {
        !matches!(self, Self::Sending)
    }

    /// The stored statuses the API shows as `self` (what a list filtered by it holds).
    pub const fn stored_as(self) -> &'static [Self] {
        match self {
            Self::Queued | Self::Sending => &[Self::Queued, Self::Sending],
            Self::Sent => &[Self::Sent],
            Self::Delivered => &[Self::Delivered],
            Self::Failed => &[Self::Failed],
            Self::Received => &[Self::Received],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::MessageStatus::{self, *};

    #[test]
    fn statuses_only_move_forward() {
        assert!(Queued.can_move_to(Sending));
        assert!(Sending.can_move_to(Sending), "a lapsed claim is retaken");
        assert!(Queued.can_move_to(Sent) && Sending.can_move_to(Sent));
        assert!(Sent.can_move_to(Delivered) && Sent.can_move_to(Failed));
        assert!(
            Queued.can_move_to(Delivered),
            "a report may overtake the send"
        );
        assert!(!Sent.can_move_to(Queued) && !Sent.can_move_to(Sending));
        assert!(!Delivered.can_move_to(Failed) && !Failed.can_move_to(Delivered));
        assert!(!Delivered.can_move_to(Sent));
        for s in MessageStatus::ALL.iter().copied() {
            assert!(!s.can_move_to(Queued) && !s.can_move_to(Received));
            assert!(!Received.can_move_to(s), "nothing moves an inbound message");
        }
    }

    #[test]
    fn sending_is_shown_as_queued() {
        assert_eq!(Sending.public(), Queued);
        for s in MessageStatus::ALL.iter().copied() {
            assert!(s.public().is_public());
            assert!(s.public().stored_as().contains(&s));
            assert_eq!(s.is_public(), s.public() == s);
        }
        assert_eq!(Queued.stored_as(), [Queued, Sending]);
    }
}
