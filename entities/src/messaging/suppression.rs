use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};

/// An address a workspace may not send to on a channel (STOP, an unsubscribe link, the API,
/// a hard bounce or a complaint). One row per workspace, channel and normalised address.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "messaging_suppressions")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub workspace_id: Uuid,
    /// `sms`, `whatsapp`, `voice` or `email`.
    pub channel: String,
    /// E.164 for phone channels; `local@domain` with the domain lower-cased for email.
    pub address: String,
    pub source: ConsentSource,
    /// Why, in the words of whoever suppressed it (the keyword, the bounce's reason, …).
    pub reason: String,
    /// The message that caused it (the inbound STOP, the bounced email), when there is one.
    pub message_id: Option<Uuid>,
    pub created_at: DateTimeUtc,
}

/// How a recipient's consent changed.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, EnumIter, DeriveActiveEnum, Serialize, Deserialize,
)]
#[sea_orm(rs_type = "String", db_type = "String(StringLen::None)")]
#[serde(rename_all = "lowercase")]
pub enum ConsentSource {
    /// A keyword texted back (STOP, START, …).
    #[sea_orm(string_value = "keyword")]
    Keyword,
    /// The one-click unsubscribe link of a bulk email.
    #[sea_orm(string_value = "link")]
    Link,
    /// The workspace, through `/api/v1/suppressions`.
    #[sea_orm(string_value = "api")]
    Api,
    /// A hard bounce the email provider reported.
    #[sea_orm(string_value = "bounce")]
    Bounce,
    /// A spam complaint the email provider reported.
    #[sea_orm(string_value = "complaint")]
    Complaint,
}

impl ActiveModelBehavior for ActiveModel {}
