use sea_orm::entity::prelude::*;

#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "identity_users")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    #[sea_orm(unique)]
    pub phone: String,
    pub phone_verified: bool,
    #[sea_orm(unique)]
    pub handle: String,
    #[sea_orm(unique)]
    pub handle_canonical: String,
    pub name: Option<String>,
    pub avatar_url: Option<String>,
    pub bio: String,
    pub country: String,
    pub language: String,
    pub pin_hash: String,
    pub kyc_status: String,
    pub kyc_level: Option<String>,
    pub kyc_documents: Option<Json>,
    pub kyc_verified_at: Option<DateTimeUtc>,
    pub failed_signins: i32,
    pub lock_count: i32,
    pub locked_until: Option<DateTimeUtc>,
    pub handle_changed_at: Option<DateTimeUtc>,
    pub deleted_at: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
