//! /auth/refresh, /auth/logout, /auth/logout/all and /sessions: rotating refresh tokens, ending
//! sessions, and the caller's signed-in devices.

use super::super::error::{IdentityError, Result};
use super::super::openapi::Errors;
use super::super::sessions::caller::Authenticated;
use super::super::state::IdentityState;
use super::dto::*;
use super::store;
use crate::core::dto::{ok, Success};
use crate::core::json_body::Json;
use crate::core::session::{Change, EndReason};
use actix_web::{delete, get, post, web, HttpResponse};
use uuid::Uuid;

/// Rotates the refresh token: the one sent stops working (using it again revokes the
/// session), the new one is valid 30 days from now, cut short only by a configured absolute
/// session lifetime.
#[utoipa::path(tag = "auth", request_body = RefreshRequest,
    responses((status = 200, body = Success<TokenPair>), Errors))]
#[post("/auth/refresh")]
pub async fn refresh(
    st: web::Data<IdentityState>,
    body: Json<RefreshRequest>,
) -> Result<HttpResponse> {
    let pair = store::refresh(&st, body.refresh_token.trim()).await?;
    Ok(HttpResponse::Ok().json(ok(pair)))
}

#[utoipa::path(tag = "auth", request_body = LogoutRequest,
    security(("bearer" = [])), responses((status = 200, body = Success<MessageResponse>), Errors))]
#[post("/auth/logout")]
pub async fn logout(
    auth: Authenticated,
    st: web::Data<IdentityState>,
    body: Json<LogoutRequest>,
) -> Result<HttpResponse> {
    store::logout(&st, auth.user.id, body.refresh_token.trim()).await?;
    Ok(HttpResponse::Ok().json(ok(MessageResponse {
        message: "Logged out".into(),
    })))
}

#[utoipa::path(tag = "auth",
    security(("bearer" = [])), responses((status = 200, body = Success<LogoutAllResponse>), Errors))]
#[post("/auth/logout/all")]
pub async fn logout_all(auth: Authenticated, st: web::Data<IdentityState>) -> Result<HttpResponse> {
    let n = store::revoke_all(&st.core.db, auth.user.id, st.core.now()).await?;
    st.sessions
        .changed(Change::AccountEnded {
            account: auth.user.id,
            reason: EndReason::LoggedOut,
        })
        .await;
    Ok(HttpResponse::Ok().json(ok(LogoutAllResponse {
        message: "Logged out of all sessions".into(),
        sessions_revoked: n,
    })))
}

#[utoipa::path(tag = "sessions", security(("bearer" = [])),
    responses((status = 200, body = Success<SessionList>), Errors))]
#[get("/sessions")]
pub async fn list(auth: Authenticated, st: web::Data<IdentityState>) -> Result<HttpResponse> {
    let rows = store::active_sessions(&st, auth.user.id).await?;
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
    store::revoke_own(&st, auth.user.id, id).await?;
    Ok(HttpResponse::Ok().json(ok(MessageResponse {
        message: "Session revoked".into(),
    })))
}
