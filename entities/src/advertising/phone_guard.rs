use sea_orm::entity::prelude::*;

/// A phone's sign-in guard: the country asked with its last code (the poster's country on
/// first sign-in), and the wrong codes in a row with the lock they set. (The cooldown
/// between codes is counted with the code limits, `core::code_limits`.)
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "advertising_phone_guards")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub phone: String,
    /// ISO 3166-1 alpha-2.
    pub country: String,
    pub failures: i32,
    pub locked_until: Option<DateTimeUtc>,
}

impl ActiveModelBehavior for ActiveModel {}
