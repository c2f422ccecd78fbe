use sea_orm::entity::prelude::*;

/// One wrong OTP code for a phone; the rolling 24-hour cap counts these.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "identity_otp_failures")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub phone: String,
    pub failed_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
