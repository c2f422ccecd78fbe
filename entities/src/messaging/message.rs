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
    /// queued, sending, sent, delivered, failed (outbound); received (inbound). `sending` is
    /// internal (claimed for its provider call) and reads as `queued` in the API.
    pub status: String,
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
