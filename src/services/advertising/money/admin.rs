//! /admin/finance: every transaction, withdrawal and deposit (paged, by status and dates),
//! and processing a withdrawal: `paid` completes its hold (the money leaves for the poster's
//! payment method), `cancelled` returns it to their available balance. One conditional
//! update claims the pending withdrawal, so it is processed once.

use super::super::error::{AdvertisingError, Result};
use super::super::openapi::Errors;
use super::super::staff::invalid_transition;
use super::super::state::AdvertisingState;
use super::super::wire::{self, ok, one_of, usd, word, Data, List};
use super::dto::TransactionView;
use super::ledger::{self, Account, TransactionKind, TransactionStatus};
use crate::core::auth::{Bearer, FinanceRole};
use crate::core::json_body::Json;
use actix_web::{get, post, web, HttpResponse};
use chrono::{DateTime, NaiveDate, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, Select};
use serde::{Deserialize, Serialize};
use switchboard_entities::advertising::payment::PaymentStatus;
use switchboard_entities::advertising::withdrawal::WithdrawalStatus;
use switchboard_entities::advertising::{invoice, transaction, withdrawal};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FinanceQuery {
    #[param(minimum = 1)]
    pub page: Option<u64>,
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u64>,
    /// The record's status.
    pub status: Option<String>,
    /// Transactions only: `earning`, `withdrawal` or `deposit`.
    #[serde(rename = "type")]
    #[param(rename = "type")]
    pub kind: Option<String>,
    /// Made at or after: an RFC 3339 time or a date (`2026-11-01`, from its start, UTC).
    pub from: Option<String>,
    /// Made before: an RFC 3339 time or a date (up to its end, UTC).
    pub to: Option<String>,
}

/// A time or a whole day (`end`: the day after, so `to=2026-11-01` takes all of it).
fn moment(field: &'static str, raw: Option<&str>, end: bool) -> Result<Option<DateTime<Utc>>> {
    let Some(raw) = raw.map(str::trim).filter(|r| !r.is_empty()) else {
        return Ok(None);
    };
    if let Ok(t) = DateTime::parse_from_rfc3339(raw) {
        return Ok(Some(t.with_timezone(&Utc)));
    }
    let day = NaiveDate::parse_from_str(raw, "%Y-%m-%d").map_err(|_| {
        AdvertisingError::invalid(field, "must be a date (YYYY-MM-DD) or an RFC 3339 time")
    })?;
    let day = if end {
        day.succ_opt().unwrap_or(day)
    } else {
        day
    };
    Ok(day.and_hms_opt(0, 0, 0).map(|t| t.and_utc()))
}

/// Narrows `select` to records made within the query's dates.
fn within<E: EntityTrait>(
    q: &FinanceQuery,
    select: Select<E>,
    created: E::Column,
) -> Result<Select<E>>
where
    E::Column: ColumnTrait,
{
    let mut select = select;
    if let Some(from) = moment("from", q.from.as_deref(), false)? {
        select = select.filter(created.gte(from));
    }
    if let Some(to) = moment("to", q.to.as_deref(), true)? {
        select = select.filter(created.lt(to));
    }
    Ok(select)
}

/// A transaction as finance sees it: whose it is too.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminTransactionView {
    pub id: String,
    #[serde(flatten)]
    pub transaction: TransactionView,
    pub user_id: Option<String>,
    pub advertiser_id: Option<String>,
}

impl From<&transaction::Model> for AdminTransactionView {
    fn from(t: &transaction::Model) -> Self {
        Self {
            id: t.id.to_string(),
            transaction: TransactionView::from(t),
            user_id: t.poster_id.map(|i| i.to_string()),
            advertiser_id: t.advertiser_id.map(|i| i.to_string()),
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminWithdrawalView {
    pub id: String,
    pub user_id: String,
    pub transaction_id: String,
    pub amount_cents: i64,
    pub amount_usd: String,
    pub payment_method_id: String,
    /// `pending`, `paid` or `cancelled`.
    pub status: String,
    pub reference: Option<String>,
    pub processed_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

impl From<&withdrawal::Model> for AdminWithdrawalView {
    fn from(w: &withdrawal::Model) -> Self {
        Self {
            id: w.id.to_string(),
            user_id: w.poster_id.to_string(),
            transaction_id: w.transaction_id.to_string(),
            amount_cents: w.amount_cents,
            amount_usd: usd(w.amount_cents),
            payment_method_id: w.payment_method_id.clone(),
            status: w.status.as_str().to_owned(),
            reference: w.reference.clone(),
            processed_at: w.processed_at,
            created_at: w.created_at,
        }
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ProcessWithdrawal {
    /// `paid` or `cancelled`.
    pub status: Option<String>,
    /// The payment's reference (at most 200 characters).
    pub reference: Option<String>,
}

async fn transactions_of(
    st: &AdvertisingState,
    q: &FinanceQuery,
    kind: Option<TransactionKind>,
) -> Result<HttpResponse> {
    let window = wire::window(q.page, q.limit)?;
    let mut select = transaction::Entity::find();
    if let Some(k) = kind {
        select = select.filter(transaction::Column::Kind.eq(k));
    }
    if let Some(s) = word::<TransactionStatus>("status", q.status.as_deref())? {
        select = select.filter(transaction::Column::Status.eq(s));
    }
    let select = within(q, select, transaction::Column::CreatedAt)?;
    let page = wire::newest_first(
        &st.core.db,
        select,
        transaction::Column::CreatedAt,
        transaction::Column::Id,
        window,
    )
    .await?;
    Ok(ok(List::from(page.map(|t| AdminTransactionView::from(&t)))))
}

/// Every transaction, newest first.
#[utoipa::path(tag = "admin", params(FinanceQuery),
    responses((status = 200, body = Data<List<AdminTransactionView>>), Errors), security(("bearer" = [])))]
#[get("/admin/finance/transactions")]
pub async fn finance_transactions(
    st: web::Data<AdvertisingState>,
    _staff: Bearer<FinanceRole>,
    q: web::Query<FinanceQuery>,
) -> Result<HttpResponse> {
    let kind = word::<TransactionKind>("type", q.kind.as_deref())?;
    transactions_of(&st, &q, kind).await
}

/// Money into ads (payments and operators' grants): the ledger's deposits, newest first.
#[utoipa::path(tag = "admin", params(FinanceQuery),
    responses((status = 200, body = Data<List<AdminTransactionView>>), Errors), security(("bearer" = [])))]
#[get("/admin/finance/deposits")]
pub async fn finance_deposits(
    st: web::Data<AdvertisingState>,
    _staff: Bearer<FinanceRole>,
    q: web::Query<FinanceQuery>,
) -> Result<HttpResponse> {
    transactions_of(&st, &q, Some(TransactionKind::Deposit)).await
}

/// Posters' withdrawals, newest first.
#[utoipa::path(tag = "admin", params(FinanceQuery),
    responses((status = 200, body = Data<List<AdminWithdrawalView>>), Errors), security(("bearer" = [])))]
#[get("/admin/finance/withdrawals")]
pub async fn finance_withdrawals(
    st: web::Data<AdvertisingState>,
    _staff: Bearer<FinanceRole>,
    q: web::Query<FinanceQuery>,
) -> Result<HttpResponse> {
    let window = wire::window(q.page, q.limit)?;
    let mut select = withdrawal::Entity::find();
    if let Some(s) = word::<WithdrawalStatus>("status", q.status.as_deref())? {
        select = select.filter(withdrawal::Column::Status.eq(s));
    }
    let select = within(&q, select, withdrawal::Column::CreatedAt)?;
    let page = wire::newest_first(
        &st.core.db,
        select,
        withdrawal::Column::CreatedAt,
        withdrawal::Column::Id,
        window,
    )
    .await?;
    Ok(ok(List::from(page.map(|w| AdminWithdrawalView::from(&w)))))
}

/// Advertisers' invoices (one per paid checkout), newest first, by issue date.
#[utoipa::path(tag = "admin", params(FinanceQuery),
    responses((status = 200, body = Data<List<super::super::payments::dto::InvoiceView>>), Errors), security(("bearer" = [])))]
#[get("/admin/finance/invoices")]
pub async fn finance_invoices(
    st: web::Data<AdvertisingState>,
    _staff: Bearer<FinanceRole>,
    q: web::Query<FinanceQuery>,
) -> Result<HttpResponse> {
    let window = wire::window(q.page, q.limit)?;
    // Invoices are issued for paid checkouts only: `paid` is the one status there is.
    one_of(
        "status",
        q.status.as_deref(),
        &[PaymentStatus::Paid.as_str()],
    )?;
    let select = within(&q, invoice::Entity::find(), invoice::Column::IssuedAt)?;
    let page = wire::newest_first(
        &st.core.db,
        select,
        invoice::Column::IssuedAt,
        invoice::Column::Id,
        window,
    )
    .await?;
    Ok(ok(List::from(page.map(|i| {
        super::super::payments::dto::InvoiceView::from(&i)
    }))))
}

fn withdrawal_not_found() -> crate::core::error::ApiError {
    super::super::error::AdvertisingError::NotFound(super::super::error::Record::Withdrawal).into()
}

/// Processes a pending withdrawal: `paid` completes its hold, `cancelled` gives it back to
/// the poster; a processed one is 409.
#[utoipa::path(tag = "admin", params(("id" = String, Path)), request_body = ProcessWithdrawal,
    responses((status = 200, body = Data<AdminWithdrawalView>), Errors), security(("bearer" = [])))]
#[post("/admin/finance/withdrawals/{id}/process")]
pub async fn process_withdrawal(
    st: web::Data<AdvertisingState>,
    _staff: Bearer<FinanceRole>,
    id: web::Path<String>,
    body: Json<ProcessWithdrawal>,
) -> Result<HttpResponse> {
    let id = Uuid::parse_str(id.trim()).map_err(|_| withdrawal_not_found())?;
    let status = match body
        .status
        .as_deref()
        .map(str::trim)
        .and_then(WithdrawalStatus::parse)
    {
        Some(s) if WithdrawalStatus::Pending.can_move_to(s) => s,
        _ => return Err(AdvertisingError::invalid("status", "must be paid or cancelled").into()),
    };
    let reference = body
        .reference
        .as_deref()
        .map(str::trim)
        .filter(|r| !r.is_empty());
    if reference.is_some_and(|r| r.chars().count() > 200) {
        return Err(
            AdvertisingError::invalid("reference", "must be at most 200 characters").into(),
        );
    }
    let now = st.core.now();
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let w = withdrawal::Entity::find_by_id(id)
        .one(&*txn)
        .await?
        .ok_or_else(withdrawal_not_found)?;
    let claimed = withdrawal::Entity::update_many()
        .col_expr(withdrawal::Column::Status, Expr::value(status))
        .col_expr(
            withdrawal::Column::Reference,
            Expr::value(reference.map(str::to_owned)),
        )
        .col_expr(withdrawal::Column::ProcessedAt, Expr::value(now))
        .filter(withdrawal::Column::Id.eq(id))
        .filter(withdrawal::Column::Status.eq(WithdrawalStatus::Pending))
        .exec(&*txn)
        .await?;
    if claimed.rows_affected != 1 {
        return Err(invalid_transition(format!(
            "this withdrawal is already {}",
            w.status
        )));
    }
    let tx = transaction::Entity::find_by_id(w.transaction_id)
        .one(&*txn)
        .await?
        .ok_or_else(|| {
            crate::core::error::ApiError::internal(std::io::Error::other(
                "withdrawal without its transaction",
            ))
        })?;
    let (p, amount) = (w.poster_id, w.amount_cents);
    let (tx_status, to) = if status == WithdrawalStatus::Paid {
        (TransactionStatus::Completed, Account::Payouts)
    } else {
        (TransactionStatus::Cancelled, Account::PosterAvailable(p))
    };
    ledger::settle(
        &*txn,
        &tx,
        tx_status,
        &[(Account::PosterPending(p), -amount), (to, amount)],
        now,
    )
    .await?;
    let done = withdrawal::Entity::find_by_id(id)
        .one(&*txn)
        .await?
        .ok_or_else(withdrawal_not_found)?;
    txn.commit().await?;
    Ok(ok(AdminWithdrawalView::from(&done)))
}
