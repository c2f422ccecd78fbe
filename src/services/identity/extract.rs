//! The bearer of an access token: a live account and an active session. The token itself
//! is read and verified by `core::auth`.

use super::error::IdentityError;
use super::service::tokens::ACCESS;
use super::IdentityState;
use crate::core::auth::{Auth, AuthErrors, Bearer};
use crate::core::error::ApiError;
use crate::core::jwt::JwtError;
use crate::core::CoreContext;
use actix_web::dev::Payload;
use actix_web::{web, FromRequest, HttpRequest};
use futures_util::future::LocalBoxFuture;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use switchboard_entities::identity::{session, user};
use uuid::Uuid;

/// The credentials policy of the identity listener: its access tokens, its codes.
pub fn policy(core: &CoreContext) -> Auth {
    Auth::new(
        core,
        ACCESS,
        AuthErrors {
            missing: |_| IdentityError::InvalidToken.into(),
            invalid_token: |e| match e {
                JwtError::Expired => IdentityError::TokenExpired.into(),
                _ => IdentityError::InvalidToken.into(),
            },
            forbidden: |_| IdentityError::Forbidden("not allowed".into()).into(),
            invalid_key: |_| IdentityError::InvalidToken.into(),
        },
    )
}

pub struct Authenticated {
    pub user: user::Model,
    pub session_id: Uuid,
}

impl FromRequest for Authenticated {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let st = req.app_data::<web::Data<IdentityState>>().cloned();
        let bearer = <Bearer>::from_request(req, payload).into_inner();
        Box::pin(async move {
            let st = st.ok_or_else(|| {
                ApiError::internal(std::io::Error::other("identity state missing"))
            })?;
            let claims = bearer?.claims;
            let user_id = Uuid::parse_str(&claims.sub).map_err(|_| IdentityError::InvalidToken)?;
            let session_id = claims
                .sid
                .as_deref()
                .and_then(|s| Uuid::parse_str(s).ok())
                .ok_or(IdentityError::InvalidToken)?;
            // A revoked session (logout, PIN reset, deletion) ends its access tokens too.
            session::Entity::find_by_id(session_id)
                .filter(session::Column::UserId.eq(user_id))
                .filter(session::Column::RevokedAt.is_null())
                .one(&st.core.db)
                .await?
                .ok_or(IdentityError::InvalidToken)?;
            let user = user::Entity::find_by_id(user_id)
                .filter(user::Column::DeletedAt.is_null())
                .one(&st.core.db)
                .await?
                .ok_or(IdentityError::InvalidToken)?;
            Ok(Authenticated { user, session_id })
        })
    }
}
