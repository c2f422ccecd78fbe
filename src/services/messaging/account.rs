//! POST /api/v1/auth/token (API key → bearer JWT) and GET /api/v1/account.

use super::auth::{AnyAuth, ApiKey, TOKEN_TYPE};
use super::domain::credits_value;
use super::dto::*;
use super::error::{MessagingError, Result};
use super::limits;
use super::openapi::Errors;
use super::MessagingState;
use crate::core::error::ApiError;
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use sea_orm::EntityTrait;
use switchboard_entities::messaging::workspace;

#[utoipa::path(tag = "account",
    security(("api_key" = [])),
    responses((status = 200, description = "Bearer token for GET /api/v1/account",
        body = Success<TokenResponse>), Errors))]
#[post("/api/v1/auth/token")]
pub async fn token(
    req: HttpRequest,
    st: web::Data<MessagingState>,
    ApiKey(ws): ApiKey,
) -> Result<HttpResponse> {
    limits::per_workspace(&req, "token", st.cfg.rate_limits.token, ws.id).await?;
    let ttl = st.cfg.token_ttl_secs;
    let token = st
        .core
        .jwt
        .issue(TOKEN_TYPE, &ws.id.to_string(), None, st.core.now(), ttl)
        .map_err(ApiError::internal)?;
    Ok(HttpResponse::Ok().json(ok(TokenResponse {
        access_token: token,
        token_type: "Bearer".into(),
        expires_in: ttl,
    })))
}

#[utoipa::path(tag = "account",
    security(("bearer" = []), ("api_key" = [])),
    responses((status = 200, body = Success<Account>), Errors))]
#[get("/api/v1/account")]
pub async fn account(
    req: HttpRequest,
    st: web::Data<MessagingState>,
    AnyAuth(ws): AnyAuth,
) -> Result<HttpResponse> {
    limits::per_workspace(&req, "default", st.cfg.rate_limits.default, ws.id).await?;
    // Read fresh: the extractor's row may predate a debit in flight.
    let ws = workspace::Entity::find_by_id(ws.id)
        .one(&st.core.db)
        .await?
        .ok_or_else(|| MessagingError::Unauthorized("workspace no longer exists".into()))?;
    Ok(HttpResponse::Ok().json(ok(Account {
        workspace_id: ws.id,
        name: ws.name,
        credits_balance: credits_value(ws.credits_balance),
        low_credit_threshold: credits_value(ws.low_credit_threshold),
    })))
}
