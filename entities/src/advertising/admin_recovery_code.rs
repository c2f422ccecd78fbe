use sea_orm::entity::prelude::*;

/// One of an administrator's one-time recovery codes (instead of a TOTP code), kept as
/// `<salt hex>$<SHA-256 hex of salt and code>`.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "advertising_admin_recovery_codes")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub admin_id: Uuid,
    pub code_hash: String,
    pub used_at: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
