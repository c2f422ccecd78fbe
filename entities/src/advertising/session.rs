use sea_orm::entity::prelude::*;

/// One sign-in of a poster (and, later, an advertiser or administrator): the `sid` of its
/// token. Live while not revoked and not expired.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "advertising_sessions")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    /// The token kind it was issued as.
    pub kind: AccountKind,
    pub account_id: Uuid,
    pub expires_at: DateTimeUtc,
    pub revoked_at: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}

states! {
    /// The kind of account that signs in: the session's `kind` and its token's `typ`.
    pub enum AccountKind {
        Poster = "poster",
        Advertiser = "advertiser",
        Admin = "admin",
    }
}
