//! Who may call: the marketplace's bearer-token policy (its sessions must be live), and the
//! [`Verified`] extractor: writes need a verified phone, so an account that never verified
//! its number (anyone's number can be typed at sign-up) may sign in and read, nothing more.

use crate::core::auth::{AnyRole, Auth, AuthErrors, Bearer, Role, Roles};
use crate::core::error::ApiError;
use crate::core::jwt::Claims;
use crate::core::session::Sessions;
use crate::core::CoreContext;
use crate::services::marketplace::accounts::tokens::ACCESS_TOKEN_TYPE;
use crate::services::marketplace::error::MarketplaceError;
use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest};
use futures_util::future::LocalBoxFuture;
use std::ops::Deref;
use std::sync::Arc;
use switchboard_entities::marketplace::user;
use uuid::Uuid;

/// Who asks: the account and whether it administers the marketplace.
#[derive(Debug, Clone, Copy)]
pub struct Caller {
    pub id: Uuid,
    pub admin: bool,
}

/// The caller of a request: its account, and whether it holds the admin role.
pub fn caller<R: Roles>(auth: &Bearer<R>) -> crate::services::marketplace::error::Result<Caller> {
    Ok(Caller {
        id: account(&auth.claims)?,
        admin: auth.claims.roles.contains(&Role::Admin),
    })
}

/// The caller's account id.
pub fn user_id<R: Roles>(auth: &Bearer<R>) -> crate::services::marketplace::error::Result<Uuid> {
    account(&auth.claims)
}

/// The account a token names (a subject that is not an id names no account).
pub fn account(claims: &Claims) -> crate::services::marketplace::error::Result<Uuid> {
    Ok(Uuid::parse_str(&claims.sub).map_err(|_| MarketplaceError::AccountGone)?)
}

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

/// Bearer tokens of the marketplace, with the spec's `invalid_token`; their sessions must be
/// live.
pub fn policy(core: &CoreContext, sessions: Arc<Sessions>) -> Auth {
    Auth::new(
        core,
        &[ACCESS_TOKEN_TYPE],
        AuthErrors {
            missing: |what| {
                ApiError::unauthorized(format!("missing {what}: Bearer <access token>"))
                    .code("invalid_token")
            },
            invalid_token: |_| {
                ApiError::unauthorized("access token is invalid or expired").code("invalid_token")
            },
            forbidden: |_| ApiError::forbidden("your role does not allow this operation"),
            invalid_key: |what| ApiError::unauthorized(format!("invalid {what}")),
        },
    )
    .with_sessions(sessions)
}
