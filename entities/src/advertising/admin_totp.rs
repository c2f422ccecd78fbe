use sea_orm::entity::prelude::*;

/// An administrator's TOTP (RFC 6238) second factor: enrolled (a secret, sealed with the
/// service's key) and, once a code confirmed it, enabled. `last_step` is the newest 30-second
/// step whose code was accepted, so no code works twice.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "advertising_admin_totp")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub admin_id: Uuid,
    pub secret_sealed: String,
    pub confirmed_at: Option<DateTimeUtc>,
    pub last_step: Option<i64>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
