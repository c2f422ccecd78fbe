use sea_orm::entity::prelude::*;

/// One sign-in of a poster (and, later, an advertiser or administrator): the `sid` of its
/// token. Live while not revoked and not expired.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "advertising_sessions")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    /// `poster`, `advertiser` or `admin`: the token kind it was issued as.
    pub kind: String,
    pub account_id: Uuid,
    pub expires_at: DateTimeUtc,
    pub revoked_at: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
