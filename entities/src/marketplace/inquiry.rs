use sea_orm::entity::prelude::*;

/// A customer's inquiry to the dealer who lists a car.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "marketplace_inquiries")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub car_id: Uuid,
    pub dealer_id: Uuid,
    pub customer_id: Uuid,
    pub message: String,
    /// whatsapp, phone or email.
    pub contact_method: String,
    pub status: InquiryStatus,
    /// The UTC day of `created_at`, for trending's per-day sums.
    pub day: String,
    pub created_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}

states! {
    /// An inquiry's state; every inquiry is new (nothing moves it yet).
    pub enum InquiryStatus {
        New = "new",
    }
}
