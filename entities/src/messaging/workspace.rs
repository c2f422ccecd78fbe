use sea_orm::entity::prelude::*;

/// A customer account: API key (stored as SHA-256), credit balance in 1/100 credit.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "messaging_workspaces")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub name: String,
    #[sea_orm(unique)]
    pub api_key_hash: String,
    /// First characters of the key, for recognising it in listings; not a secret.
    pub api_key_prefix: String,
    /// Balance in hundredths of a credit.
    pub credits_balance: i64,
    /// credit.low fires when the balance drops below this (hundredths of a credit).
    pub low_credit_threshold: i64,
    /// Default display name for email `from`.
    pub sender_name: String,
    /// The carrier number whose inbound messages belong to this workspace.
    #[sea_orm(unique)]
    pub phone_number: Option<String>,
    /// The answers to STOP, START and HELP texted to this workspace's number; null answers
    /// with the service's default words.
    pub opt_out_reply: Option<String>,
    pub opt_in_reply: Option<String>,
    pub help_reply: Option<String>,
    /// A mailbox named in bulk mail's `List-Unsubscribe` beside the one-click link.
    pub unsubscribe_mailbox: Option<String>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
