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
    pub kyc_status: KycStatus,
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

states! {
    /// Where an account's identity check stands: `none` until a verification completes, then
    /// `verified` (with `kyc_level`, `kyc_documents` and `kyc_verified_at`) for good.
    pub enum KycStatus {
        NotStarted = "none",
        /// Never stored: what `GET /kyc/status` answers while an unverified account has an
        /// open verification page.
        Pending = "pending",
        Verified = "verified",
    }
}

impl KycStatus {
    /// Whether a verification may start from here: not once verified.
    pub const fn may_verify(self) -> bool {
        !matches!(self, Self::Verified)
    }
}

#[cfg(test)]
mod tests {
    use super::KycStatus;

    #[test]
    fn only_an_unverified_account_starts_a_verification() {
        assert!(KycStatus::NotStarted.may_verify());
        assert!(KycStatus::Pending.may_verify());
        assert!(!KycStatus::Verified.may_verify());
    }
}
