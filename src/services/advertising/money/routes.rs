//! /users/balance and /transactions: what a poster earned, holds and withdraws.

use super::super::error::{AdvertisingError, Result};
use super::super::openapi::Errors;
use super::super::sessions::{self, PosterBearer};
use super::super::state::AdvertisingState;
use super::super::wire::{ok, parse_usd, usd, Data, List};
use super::dto::*;
use super::ledger::{TransactionKind, TransactionStatus};
use super::store;
use crate::core::json_body::Json;
use actix_web::{get, post, web, HttpResponse};

#[utoipa::path(tag = "money", responses((status = 200, body = Data<BalanceView>), Errors),
    security(("bearer" = [])))]
#[get("/users/balance")]
pub async fn balance(
    st: web::Data<AdvertisingState>,
    bearer: PosterBearer,
) -> Result<HttpResponse> {
    let poster = sessions::poster(&bearer)?;
    Ok(ok(BalanceView::from(store::balance(&st, poster.id).await?)))
}

/// The poster's transactions, newest first.
#[utoipa::path(tag = "money", params(TransactionsQuery),
    responses((status = 200, body = Data<List<TransactionView>>), Errors), security(("bearer" = [])))]
#[get("/transactions")]
pub async fn transactions(
    st: web::Data<AdvertisingState>,
    bearer: PosterBearer,
    q: web::Query<TransactionsQuery>,
) -> Result<HttpResponse> {
    let poster = sessions::poster(&bearer)?;
    let window = super::super::wire::window(q.page, q.limit)?;
    let filter = store::TransactionFilter {
        kind: super::super::wire::word::<TransactionKind>("type", q.kind.as_deref())?,
        status: super::super::wire::word::<TransactionStatus>("status", q.status.as_deref())?,
    };
    let page = store::transactions(&st, poster.id, filter, window).await?;
    Ok(ok(List::from(page.map(|t| TransactionView::from(&t)))))
}

/// What withdrawals hold and what screenshots awaiting a decision would earn.
#[utoipa::path(tag = "money", responses((status = 200, body = Data<PendingAmount>), Errors),
    security(("bearer" = [])))]
#[get("/transactions/pending-amount")]
pub async fn pending_amount(
    st: web::Data<AdvertisingState>,
    bearer: PosterBearer,
) -> Result<HttpResponse> {
    let poster = sessions::poster(&bearer)?;
    let b = store::balance(&st, poster.id).await?;
    Ok(ok(PendingAmount {
        pending_cents: b.pending,
        pending_usd: usd(b.pending),
        under_review_cents: b.under_review,
        under_review_usd: usd(b.under_review),
    }))
}

#[utoipa::path(tag = "money", params(("code" = String, Path, description = "e.g. TX-7K3M9Q2P")),
    responses((status = 200, body = Data<TransactionView>), Errors), security(("bearer" = [])))]
#[get("/transactions/{code}")]
pub async fn transaction(
    st: web::Data<AdvertisingState>,
    bearer: PosterBearer,
    code: web::Path<String>,
) -> Result<HttpResponse> {
    let poster = sessions::poster(&bearer)?;
    let t = store::transaction(&st, poster.id, &code).await?;
    Ok(ok(TransactionView::from(&t)))
}

/// Holds `amount` of the available balance as a pending withdrawal.
#[utoipa::path(tag = "money", request_body = WithdrawRequest,
    responses((status = 200, body = Data<WithdrawalView>), Errors), security(("bearer" = [])))]
#[post("/transactions/withdraw")]
pub async fn withdraw(
    st: web::Data<AdvertisingState>,
    bearer: PosterBearer,
    body: Json<WithdrawRequest>,
) -> Result<HttpResponse> {
    let poster = sessions::poster(&bearer)?;
    let amount = parse_usd(
        "amount",
        body.amount.as_ref().unwrap_or(&serde_json::Value::Null),
    )?;
    let method = body
        .payment_method_id
        .as_deref()
        .map(str::trim)
        .unwrap_or_default();
    if !(1..=128).contains(&method.chars().count()) {
        return Err(
            AdvertisingError::invalid("paymentMethodId", "must be 1 to 128 characters").into(),
        );
    }
    let (t, w) = store::withdraw(&st, poster.id, amount.0, method.to_owned()).await?;
    Ok(ok(WithdrawalView::new(&w, &t)))
}
