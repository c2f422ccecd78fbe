use sea_orm::entity::prelude::*;

/// A customer's request to test-drive a car, for its owner to see.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "marketplace_test_drives")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub car_id: Uuid,
    pub user_id: Uuid,
    /// YYYY-MM-DD.
    pub preferred_date: String,
    /// As the customer wrote it (clock text: 14:30, 2:30 PM).
    pub preferred_time: String,
    pub message: String,
    pub status: TestDriveStatus,
    pub created_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}

states! {
    /// A test-drive request's state; every request is pending (nothing moves it yet).
    pub enum TestDriveStatus {
        Pending = "pending",
    }
}
