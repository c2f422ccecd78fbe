//! Writes need a verified phone: an account that never verified its number (anyone's number
//! can be typed at sign-up) may sign in and read, nothing more.

use crate::core::auth::{AnyRole, Bearer, Roles};
use crate::core::error::ApiError;
use crate::services::marketplace::error::MarketplaceError;
use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest};
use futures_util::future::LocalBoxFuture;
use std::ops::Deref;
use switchboard_entities::marketplace::user;

/// A [`Bearer`] whose account has verified its phone, as the session check read it (so a
/// verification counts from the next request); otherwise 403 `phone_not_verified`.
pub struct Verified<R: Roles = AnyRole>(Bearer<R>);

impl<R: Roles> Deref for Verified<R> {
    type Target = Bearer<R>;

    fn deref(&self) -> &Bearer<R> {
        &self.0
    }
}

impl<R: Roles> FromRequest for Verified<R> {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let bearer = Bearer::<R>::from_request(req, payload);
        Box::pin(async move {
            let bearer = bearer.await?;
            let verified = bearer
                .account::<user::Model>()
                .is_some_and(|u| u.is_phone_verified);
            if !verified {
                return Err(MarketplaceError::PhoneNotVerified.into());
            }
            Ok(Self(bearer))
        })
    }
}
