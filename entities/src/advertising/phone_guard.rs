use sea_orm::entity::prelude::*;

/// A phone's sign-in guard: when its last code was sent (the cooldown), the country asked
/// with it (the poster's country on first sign-in), and the wrong codes in a row with the
/// lock they set.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "advertising_phone_guards")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub phone: String,
    /// ISO 3166-1 alpha-2.
    pub country: String,
    pub last_sent_at: Option<DateTimeUtc>,
    pub failures: i32,
    pub locked_until: Option<DateTimeUtc>,
}

impl ActiveModelBehavior for ActiveModel {}
