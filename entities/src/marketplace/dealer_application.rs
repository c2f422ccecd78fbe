use sea_orm::entity::prelude::*;

#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "marketplace_dealer_applications")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub user_id: Uuid,
    pub business_name: String,
    pub location: String,
    pub business_phone: Option<String>,
    pub website: Option<String>,
    pub description: Option<String>,
    pub status: ApplicationStatus,
    pub submitted_at: DateTimeUtc,
    pub reviewed_at: Option<DateTimeUtc>,
}

impl ActiveModelBehavior for ActiveModel {}

states! {
    /// An application waits pending until an administrator approves it; approved is final.
    pub enum ApplicationStatus {
        Pending = "pending",
        Approved = "approved",
    }
}

impl ApplicationStatus {
    /// Only a pending application is approved; while one is pending its user may not apply
    /// again.
    pub fn can_approve(self) -> bool {
        self == Self::Pending
    }
}
