//! Identity workflows over the database. Handlers parse input and call these.

pub mod accounts;
pub mod kyc;
pub mod otp;
pub mod tokens;

use super::error::Result;
use super::IdentityState;
use crate::core::phone::PhoneNumber;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};
use switchboard_entities::identity::user;

/// The live (not deleted) account of a phone number.
pub async fn live_user_by_phone(
    db: &impl ConnectionTrait,
    phone: &PhoneNumber,
) -> Result<Option<user::Model>> {
    Ok(user::Entity::find()
        .filter(user::Column::Phone.eq(phone.as_str()))
        .filter(user::Column::DeletedAt.is_null())
        .one(db)
        .await?)
}

/// Any account of a phone number, including one awaiting hard deletion.
pub async fn any_user_by_phone(
    db: &impl ConnectionTrait,
    phone: &PhoneNumber,
) -> Result<Option<user::Model>> {
    Ok(user::Entity::find()
        .filter(user::Column::Phone.eq(phone.as_str()))
        .one(db)
        .await?)
}

impl IdentityState {
    /// Key for OTP digests, derived from the server secret.
    pub fn otp_key(&self) -> Vec<u8> {
        crate::core::secrets::hmac_sha256(
            self.core.settings.auth.jwt_secret.as_bytes(),
            b"identity-otp",
        )
    }
}
