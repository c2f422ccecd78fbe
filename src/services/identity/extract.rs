//! The bearer of an access token: a live account and an active session.

use super::error::IdentityError;
use super::service::tokens::ACCESS;
use super::IdentityState;
use crate::core::jwt::JwtError;
use actix_web::dev::Payload;
use actix_web::{web, FromRequest, HttpRequest};
use futures_util::future::LocalBoxFuture;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use switchboard_entities::identity::{session, user};
use uuid::Uuid;

/// The token of an `Authorization: Bearer …` header, unverified.
pub fn bearer_token(req: &HttpRequest) -> Option<&str> {
    req.headers()
        .get(actix_web::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(str::trim)
}

pub struct Authenticated {
    pub user: user::Model,
    pub session_id: Uuid,
}

impl FromRequest for Authenticated {
    type Error = IdentityError;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let st = req.app_data::<web::Data<IdentityState>>().cloned();
        let token = bearer_token(req).map(str::to_owned);
        Box::pin(async move {
            let st =
                st.ok_or_else(|| IdentityError::InvalidRequest("identity state missing".into()))?;
            let token = token.ok_or(IdentityError::InvalidToken)?;
            let now = st.core.now();
            let claims = st
                .core
                .jwt
                .verify(&token, ACCESS, now)
                .map_err(|e| match e {
                    JwtError::Expired => IdentityError::TokenExpired,
                    _ => IdentityError::InvalidToken,
                })?;
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
