use sea_orm::entity::prelude::*;

#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "advertising_posters")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    #[sea_orm(unique)]
    pub phone: String,
    /// ISO 3166-1 alpha-2.
    pub country: String,
    pub name: Option<String>,
    pub email: Option<String>,
    pub avatar_url: Option<String>,
    #[sea_orm(unique)]
    pub referral_code: String,
    pub status: PosterStatus,
    pub kyc_status: KycStatus,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}

states! {
    /// A poster's standing: a banned poster's tokens stop working and they cannot sign in.
    pub enum PosterStatus {
        Active = "active",
        Banned = "banned",
    }
}

states! {
    /// Where a poster's identity check stands, as staff set it: `none` until one is asked.
    pub enum KycStatus {
        NotStarted = "none",
        Pending = "pending",
        Verified = "verified",
        Rejected = "rejected",
    }
}
