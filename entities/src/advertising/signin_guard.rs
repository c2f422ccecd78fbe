use sea_orm::entity::prelude::*;

/// The password sign-in guard of one address of one kind of account (advertiser or
/// administrator), whether or not an account uses it: `key` is the SHA-256 of
/// `<kind>:<lowercased address>`, so unknown addresses count and lock exactly like known ones
/// and the table names no address. `failures` counts attempts since the last success.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "advertising_signin_guards")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub key: String,
    pub failures: i32,
    pub locked_until: Option<DateTimeUtc>,
    pub updated_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
