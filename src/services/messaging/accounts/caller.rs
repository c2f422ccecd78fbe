//! Who is calling: a workspace by `X-API-Key` (stored as SHA-256, compared in constant
//! time), or by the bearer JWT from POST /api/v1/auth/token. The headers are parsed by
//! `core::auth`; this module resolves them to the workspace.

use super::super::error::MessagingError;
use super::super::state::MessagingState;
use crate::core::auth::{Auth, AuthErrors, Credential, PresentedKey};
use crate::core::error::ApiError;
use crate::core::secrets::{constant_time_eq, sha256_hex};
use crate::core::CoreContext;
use actix_web::dev::Payload;
use actix_web::{web, FromRequest, HttpRequest};
use futures_util::future::LocalBoxFuture;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use switchboard_entities::messaging::workspace;
use uuid::Uuid;

/// The `typ` claim of messaging bearer tokens (never accepted by other services).
pub const TOKEN_TYPE: &str = "messaging_access";

fn unauthorized(message: &str) -> ApiError {
    MessagingError::Unauthorized(message.to_owned()).into()
}

/// The credentials policy of the messaging listener.
pub fn policy(core: &CoreContext) -> Auth {
    Auth::new(
        core,
        &[TOKEN_TYPE],
        AuthErrors {
            missing: |what| unauthorized(&format!("missing {what} header")),
            invalid_token: |_| unauthorized("invalid or expired token"),
            forbidden: |_| unauthorized("invalid or expired token"),
            invalid_key: |_| unauthorized("invalid API key"),
        },
    )
}

/// A workspace authenticated by its API key.
pub struct ApiKey(pub workspace::Model);

/// A workspace authenticated by bearer JWT or API key.
pub struct AnyAuth(pub workspace::Model);

fn state(req: &HttpRequest) -> Result<web::Data<MessagingState>, ApiError> {
    req.app_data::<web::Data<MessagingState>>()
        .cloned()
        .ok_or_else(|| ApiError::internal(std::io::Error::other("messaging state missing")))
}

async fn by_key(st: &MessagingState, key: &str) -> Result<workspace::Model, ApiError> {
    let digest = sha256_hex(key.as_bytes());
    let ws = workspace::Entity::find()
        .filter(workspace::Column::ApiKeyHash.eq(&digest))
        .one(&st.core.db)
        .await?;
    match ws {
        Some(ws) if constant_time_eq(ws.api_key_hash.as_bytes(), digest.as_bytes()) => Ok(ws),
        _ => Err(unauthorized("invalid API key")),
    }
}

impl FromRequest for ApiKey {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let st = state(req);
        let key = PresentedKey::from_request(req, payload).into_inner();
        Box::pin(async move { by_key(&*st?, &key?.0).await.map(ApiKey) })
    }
}

impl FromRequest for AnyAuth {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let st = state(req);
        let credential = Credential::from_request(req, payload);
        Box::pin(async move {
            let st = st?;
            match credential.await? {
                Credential::Key(key) => by_key(&st, &key).await.map(AnyAuth),
                Credential::Token(claims) => {
                    let id = Uuid::parse_str(&claims.sub)
                        .map_err(|_| unauthorized("invalid or expired token"))?;
                    workspace::Entity::find_by_id(id)
                        .one(&st.core.db)
                        .await?
                        .map(AnyAuth)
                        .ok_or_else(|| unauthorized("invalid or expired token"))
                }
            }
        })
    }
}
