use sea_orm::entity::prelude::*;

/// A business that funds ads. Signs in by email (lowercased) and password (argon2id).
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "advertising_advertisers")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    #[sea_orm(unique)]
    pub email: String,
    pub password_hash: String,
    pub company_name: String,
    /// ISO 3166-1 alpha-2.
    pub country_code: String,
    pub contact_name: Option<String>,
    pub phone: Option<String>,
    pub website: Option<String>,
    /// None until the address is verified; an unverified advertiser cannot sign in.
    pub email_verified_at: Option<DateTimeUtc>,
    /// When the last verification mail was queued (at most one a minute).
    pub verification_sent_at: Option<DateTimeUtc>,
    /// When staff suspended the advertiser (None: not suspended); its ads are paused.
    pub suspended_at: Option<DateTimeUtc>,
    pub suspended_reason: Option<String>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
