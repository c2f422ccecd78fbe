//! Who is calling: a workspace by `X-API-Key` (stored as SHA-256, compared in constant
//! time), or by the bearer JWT from POST /api/v1/auth/token.

use super::error::MessagingError;
use super::MessagingState;
use crate::core::secrets::{constant_time_eq, sha256_hex};
use actix_web::dev::Payload;
use actix_web::{web, FromRequest, HttpRequest};
use futures_util::future::LocalBoxFuture;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use switchboard_entities::messaging::workspace;
use uuid::Uuid;

pub const API_KEY_HEADER: &str = "X-API-Key";
/// The `typ` claim of messaging bearer tokens (never accepted by other services).
pub const TOKEN_TYPE: &str = "messaging_access";

/// A workspace authenticated by its API key.
pub struct ApiKey(pub workspace::Model);

/// A workspace authenticated by bearer JWT or API key.
pub struct AnyAuth(pub workspace::Model);

fn state(req: &HttpRequest) -> Result<web::Data<MessagingState>, MessagingError> {
    req.app_data::<web::Data<MessagingState>>()
        .cloned()
        .ok_or_else(|| MessagingError::validation("messaging state missing"))
}

fn header(req: &HttpRequest, name: &str) -> Option<String> {
    req.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_owned())
}

async fn by_key(
    st: &MessagingState,
    key: Option<String>,
) -> Result<workspace::Model, MessagingError> {
    let key = key
        .filter(|k| !k.is_empty())
        .ok_or_else(|| MessagingError::Unauthorized("missing X-API-Key header".into()))?;
    let digest = sha256_hex(key.as_bytes());
    let ws = workspace::Entity::find()
        .filter(workspace::Column::ApiKeyHash.eq(&digest))
        .one(&st.core.db)
        .await?;
    match ws {
        Some(ws) if constant_time_eq(ws.api_key_hash.as_bytes(), digest.as_bytes()) => Ok(ws),
        _ => Err(MessagingError::Unauthorized("invalid API key".into())),
    }
}

impl FromRequest for ApiKey {
    type Error = MessagingError;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let st = state(req);
        let key = header(req, API_KEY_HEADER);
        Box::pin(async move {
            let st = st?;
            by_key(&st, key).await.map(ApiKey)
        })
    }
}

impl FromRequest for AnyAuth {
    type Error = MessagingError;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let st = state(req);
        let key = header(req, API_KEY_HEADER);
        let authorization = header(req, "Authorization");
        let bearer = authorization.as_deref().and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
                .map(|t| t.trim().to_owned())
        });
        Box::pin(async move {
            let st = st?;
            // Credentials that were sent but are not a bearer token are refused, never
            // passed over for the API key.
            if authorization.is_some() && bearer.is_none() {
                return Err(MessagingError::Unauthorized(
                    "Authorization must be Bearer <token>".into(),
                ));
            }
            let Some(token) = bearer else {
                if key.is_none() {
                    return Err(MessagingError::Unauthorized(
                        "send Authorization: Bearer <token> or X-API-Key".into(),
                    ));
                }
                return by_key(&st, key).await.map(AnyAuth);
            };
            let claims = st
                .core
                .jwt
                .verify(&token, TOKEN_TYPE, st.core.now())
                .map_err(|_| MessagingError::Unauthorized("invalid or expired token".into()))?;
            let id = Uuid::parse_str(&claims.sub)
                .map_err(|_| MessagingError::Unauthorized("invalid or expired token".into()))?;
            workspace::Entity::find_by_id(id)
                .one(&st.core.db)
                .await?
                .map(AnyAuth)
                .ok_or_else(|| MessagingError::Unauthorized("invalid or expired token".into()))
        })
    }
}
