use sea_orm::entity::prelude::*;

#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "marketplace_users")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    #[sea_orm(unique)]
    pub phone: String,
    pub email: Option<String>,
    pub name: Option<String>,
    pub password_hash: String,
    pub role: String,
    pub is_phone_verified: bool,
    /// Wrong passwords in a row since the last lock or right one.
    pub failed_logins: i32,
    /// Locks so far (each twice as long as the one before); a right password clears it.
    pub lock_count: i32,
    pub locked_until: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
