use sea_orm::entity::prelude::*;

/// A one-time code of some service (`core::otp`): its digest, never the code.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "core_otp_codes")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub service: String,
    pub phone: String,
    pub purpose: String,
    pub code_hash: String,
    pub attempts: i32,
    pub expires_at: DateTimeUtc,
    pub consumed_at: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
