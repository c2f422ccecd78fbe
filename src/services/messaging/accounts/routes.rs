//! POST /api/v1/auth/token (API key → bearer JWT), GET /api/v1/account and its ledger.

use super::super::billing::domain::credits_value;
use super::super::error::{MessagingError, Result};
use super::super::limits;
use super::super::openapi::Errors;
use super::super::state::MessagingState;
use super::caller::{AnyAuth, ApiKey, TOKEN_TYPE};
use super::dto::*;
use super::store;
use crate::core::dto::{ok, Success};
use crate::core::error::ApiError;
use crate::core::page::{Bounds, PageQuery};
use actix_web::{get, post, web, HttpRequest, HttpResponse};

/// The reasons a ledger entry has.
const LEDGER_REASONS: [&str; 3] = ["message", "refund", "grant"];

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
    let ws = store::workspace(&st.core.db, ws.id)
        .await?
        .ok_or_else(|| MessagingError::Unauthorized("workspace no longer exists".into()))?;
    Ok(HttpResponse::Ok().json(ok(Account {
        workspace_id: ws.id,
        name: ws.name,
        credits_balance: credits_value(ws.credits_balance),
        low_credit_threshold: credits_value(ws.low_credit_threshold),
    })))
}

/// The workspace's credit ledger, newest first: every debit (one per message), refund (one per
/// failed message) and grant. The balance is always the sum of the entries, which is how a
/// customer reconciles what they were charged.
#[utoipa::path(operation_id = "list_ledger", tag = "account", params(LedgerQuery, PageQuery),
    security(("bearer" = []), ("api_key" = [])),
    responses((status = 200, body = Success<LedgerList>), Errors))]
#[get("/api/v1/account/ledger")]
pub async fn ledger(
    req: HttpRequest,
    st: web::Data<MessagingState>,
    AnyAuth(ws): AnyAuth,
    q: web::Query<LedgerQuery>,
    paging: web::Query<PageQuery>,
) -> Result<HttpResponse> {
    limits::per_workspace(&req, "default", st.cfg.rate_limits.default, ws.id).await?;
    let window = paging.window(Bounds::new(50, 500))?;
    let reason = q
        .reason
        .as_deref()
        .map(|r| super::super::messages::domain::one_of("reason", r, &LEDGER_REASONS))
        .transpose()?;
    let page = store::ledger(&st.core.db, ws.id, q.message_id, reason, window).await?;
    Ok(HttpResponse::Ok().json(ok(LedgerList {
        pagination: page.numbered_meta(),
        entries: page.items.into_iter().map(LedgerEntryView::from).collect(),
    })))
}
