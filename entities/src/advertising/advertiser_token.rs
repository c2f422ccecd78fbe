use sea_orm::entity::prelude::*;

/// A single-use token mailed to an advertiser: `verify_email` (24 h) or `reset_password`
/// (1 h). Only its SHA-256 is kept, so the table leaks no working link.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "advertising_advertiser_tokens")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub advertiser_id: Uuid,
    pub purpose: String,
    #[sea_orm(unique)]
    pub token_hash: String,
    pub expires_at: DateTimeUtc,
    pub used_at: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
