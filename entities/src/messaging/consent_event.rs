use super::suppression::ConsentSource;
use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};

/// One change of a recipient's consent, kept for audit: suppressions are removed when the
/// recipient opts back in, these rows never are (they go with their workspace).
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "messaging_consent_events")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub workspace_id: Uuid,
    pub channel: String,
    pub address: String,
    pub action: ConsentAction,
    pub source: ConsentSource,
    pub reason: String,
    pub message_id: Option<Uuid>,
    pub created_at: DateTimeUtc,
}

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, EnumIter, DeriveActiveEnum, Serialize, Deserialize,
)]
#[sea_orm(rs_type = "String", db_type = "String(StringLen::None)")]
#[serde(rename_all = "snake_case")]
pub enum ConsentAction {
    #[sea_orm(string_value = "opted_out")]
    OptedOut,
    #[sea_orm(string_value = "opted_in")]
    OptedIn,
}

impl ActiveModelBehavior for ActiveModel {}
