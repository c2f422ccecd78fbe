//! Workflows of the marketplace, apart from HTTP.

use crate::core::phone::PhoneNumber;
use crate::services::marketplace::MarketplaceState;
use sea_orm::{ColumnTrait, ConnectionTrait, DbErr, EntityTrait, QueryFilter};
use switchboard_entities::marketplace::user;

impl MarketplaceState {
    /// The key one-time codes are hashed with (derived, so no second secret to configure).
    pub fn otp_key(&self) -> Vec<u8> {
        crate::core::secrets::hmac_sha256(
            self.core.settings.auth.jwt_secret.as_bytes(),
            b"marketplace-otp",
        )
    }
}

pub async fn user_by_phone(
    db: &impl ConnectionTrait,
    phone: &PhoneNumber,
) -> Result<Option<user::Model>, DbErr> {
    user::Entity::find()
        .filter(user::Column::Phone.eq(phone.as_str()))
        .one(db)
        .await
}
