use sea_orm::entity::prelude::*;

/// A poster's one push-notification token.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "advertising_device_tokens")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub poster_id: Uuid,
    pub token: String,
    /// `android` or `ios`.
    pub platform: String,
    pub updated_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
