//! The bearer of an access token: a live account and an active session. The token is read
//! and verified by `core::auth`; whether its session still holds is asked of
//! `core::session`, whose cache this module fills from the identity tables.

use super::super::error::IdentityError;
use super::store::ACCESS;
use crate::core::auth::{Auth, AuthErrors, Bearer};
use crate::core::error::ApiError;
use crate::core::jwt::JwtError;
use crate::core::session::{Live, SessionKey, SessionSource, Sessions};
use crate::core::CoreContext;
use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest};
use async_trait::async_trait;
use futures_util::future::LocalBoxFuture;
use sea_orm::{ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter};
use std::sync::Arc;
use switchboard_entities::identity::{session, user};
use uuid::Uuid;

/// The credentials policy of the identity listener: its access tokens, its sessions, its
/// codes.
pub fn policy(core: &CoreContext, sessions: Arc<Sessions>) -> Auth {
    Auth::new(
        core,
        &[ACCESS],
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
    .with_sessions(sessions)
}

/// Identity's sessions: a session row not revoked, of an account not deleted. The account
/// snapshot is the user row, so `GET /users/me` needs no read of its own.
pub struct Source(pub DatabaseConnection);

#[async_trait]
impl SessionSource for Source {
    async fn load(&self, key: SessionKey) -> Result<Option<Live>, ApiError> {
        let open = session::Entity::find_by_id(key.session)
            .filter(session::Column::UserId.eq(key.account))
            .filter(session::Column::RevokedAt.is_null())
            .one(&self.0)
            .await?
            .is_some();
        if !open {
            return Ok(None);
        }
        let user = user::Entity::find_by_id(key.account)
            .filter(user::Column::DeletedAt.is_null())
            .one(&self.0)
            .await?;
        Ok(user.map(|u| Live::new(u, Vec::new())))
    }
}

pub struct Authenticated {
    /// The account as of the last change made to it (see `core::session`).
    pub user: Arc<user::Model>,
    pub session_id: Uuid,
}

impl FromRequest for Authenticated {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let bearer = <Bearer>::from_request(req, payload);
        Box::pin(async move {
            let bearer = bearer.await?;
            let key = SessionKey::of(&bearer.claims).ok_or(IdentityError::InvalidToken)?;
            let user = bearer
                .account::<user::Model>()
                .ok_or(IdentityError::InvalidToken)?;
            Ok(Authenticated {
                user,
                session_id: key.session,
            })
        })
    }
}
