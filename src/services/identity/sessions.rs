//! /sessions: the caller's signed-in devices.

use super::dto::*;
use super::error::{IdentityError, Result};
use super::extract::Authenticated;
use super::openapi::Errors;
use super::service::tokens;
use super::IdentityState;
use actix_web::{delete, get, web, HttpResponse};
use uuid::Uuid;

#[utoipa::path(tag = "sessions", security(("bearer" = [])),
    responses((status = 200, body = Success<SessionList>), Errors))]
#[get("/sessions")]
pub async fn list(auth: Authenticated, st: web::Data<IdentityState>) -> Result<HttpResponse> {
    let rows = tokens::active_sessions(&st, auth.user.id).await?;
    let sessions: Vec<Session> = rows
        .iter()
        .map(|s| Session::from_model(s, auth.session_id))
        .collect();
    Ok(HttpResponse::Ok().json(ok(SessionList {
        total: sessions.len() as u64,
        sessions,
    })))
}

#[utoipa::path(tag = "sessions", security(("bearer" = [])),
    params(("id" = String, Path, description = "session id")),
    responses((status = 200, body = Success<MessageResponse>), Errors))]
#[delete("/sessions/{id}")]
pub async fn revoke(
    auth: Authenticated,
    st: web::Data<IdentityState>,
    path: web::Path<String>,
) -> Result<HttpResponse> {
    let id =
        Uuid::parse_str(&path).map_err(|_| IdentityError::NotFound("session not found".into()))?;
    tokens::revoke_own(&st, auth.user.id, id).await?;
    Ok(HttpResponse::Ok().json(ok(MessageResponse {
        message: "Session revoked".into(),
    })))
}
