//! A poster's money as they read it: balances, amounts under review, their transactions,
//! and withdrawals (held at once, never beyond what is available).

use super::super::error::{AdvertisingError, Record, Result};
use super::super::state::AdvertisingState;
use super::ledger::{self, Account, Movement, TransactionKind, TransactionStatus};
use crate::core::page::{Page, Window};
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, QuerySelect, Set};
use switchboard_entities::advertising::screenshot::ScreenshotStatus;
use switchboard_entities::advertising::withdrawal::WithdrawalStatus;
use switchboard_entities::advertising::{screenshot, transaction, withdrawal};
use uuid::Uuid;

pub struct Balance {
    pub available: i64,
    pub pending: i64,
    pub under_review: i64,
    pub lifetime: i64,
}

/// `SUM(col)` as a BIGINT: PostgreSQL sums a BIGINT column to NUMERIC, which is no i64.
pub fn total(col: impl sea_orm::ColumnTrait) -> sea_orm::sea_query::Expr {
    sea_orm::sea_query::Func::cast_as(sea_orm::sea_query::Func::sum(col.into_expr()), "BIGINT")
        .into()
}

/// Payouts reserved for the poster's screenshots not yet decided.
pub async fn under_review(st: &AdvertisingState, poster: Uuid) -> Result<i64> {
    let sum: Option<Option<i64>> = screenshot::Entity::find()
        .select_only()
        .column_as(total(screenshot::Column::PayoutCents), "s")
        .filter(screenshot::Column::PosterId.eq(poster))
        .filter(screenshot::Column::Status.is_in(ScreenshotStatus::UNDECIDED))
        .into_tuple()
        .one(&st.core.db)
        .await?;
    Ok(sum.flatten().unwrap_or(0))
}

/// Every approved earning, ever.
pub async fn lifetime(st: &AdvertisingState, poster: Uuid) -> Result<i64> {
    let sum: Option<Option<i64>> = transaction::Entity::find()
        .select_only()
        .column_as(total(transaction::Column::AmountCents), "s")
        .filter(transaction::Column::PosterId.eq(poster))
        .filter(transaction::Column::Kind.eq(TransactionKind::Earning))
        .filter(transaction::Column::Status.eq(TransactionStatus::Completed))
        .into_tuple()
        .one(&st.core.db)
        .await?;
    Ok(sum.flatten().unwrap_or(0))
}

pub async fn balance(st: &AdvertisingState, poster: Uuid) -> Result<Balance> {
    let db = &st.core.db;
    Ok(Balance {
        available: ledger::balance_of(db, &Account::PosterAvailable(poster)).await?,
        pending: ledger::balance_of(db, &Account::PosterPending(poster)).await?,
        under_review: under_review(st, poster).await?,
        lifetime: lifetime(st, poster).await?,
    })
}

pub struct TransactionFilter {
    pub kind: Option<TransactionKind>,
    pub status: Option<TransactionStatus>,
}

pub async fn transactions(
    st: &AdvertisingState,
    poster: Uuid,
    f: TransactionFilter,
    window: Window,
) -> Result<Page<transaction::Model>> {
    let mut select = transaction::Entity::find().filter(transaction::Column::PosterId.eq(poster));
    if let Some(kind) = f.kind {
        select = select.filter(transaction::Column::Kind.eq(kind));
    }
    if let Some(status) = f.status {
        select = select.filter(transaction::Column::Status.eq(status));
    }
    super::super::wire::newest_first(
        &st.core.db,
        select,
        transaction::Column::CreatedAt,
        transaction::Column::Id,
        window,
    )
    .await
}

pub async fn transaction(
    st: &AdvertisingState,
    poster: Uuid,
    code: &str,
) -> Result<transaction::Model> {
    transaction::Entity::find()
        .filter(transaction::Column::Code.eq(code.trim().to_ascii_uppercase()))
        .filter(transaction::Column::PosterId.eq(poster))
        .one(&st.core.db)
        .await?
        .ok_or_else(|| AdvertisingError::NotFound(Record::Transaction).into())
}

/// Holds `cents` of the poster's available balance as a pending withdrawal. Concurrent
/// requests never overdraw: the available balance moves by one guarded update inside the
/// database transaction.
pub async fn withdraw(
    st: &AdvertisingState,
    poster: Uuid,
    cents: i64,
    payment_method: String,
) -> Result<(transaction::Model, withdrawal::Model)> {
    let now = st.core.now();
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let tx = ledger::post(
        &*txn,
        Movement {
            kind: TransactionKind::Withdrawal,
            status: TransactionStatus::Pending,
            amount_cents: cents,
            poster_id: Some(poster),
            advertiser_id: None,
            ad_id: None,
            screenshot_id: None,
            description: "Withdrawal requested".into(),
            idempotency_key: None,
            legs: vec![
                (Account::PosterAvailable(poster), -cents),
                (Account::PosterPending(poster), cents),
            ],
        },
        now,
    )
    .await?
    .ok_or_else(|| {
        crate::core::error::ApiError::internal(std::io::Error::other(
            "withdrawal without a transaction",
        ))
    })?;
    let w = withdrawal::ActiveModel {
        id: Set(Uuid::new_v4()),
        poster_id: Set(poster),
        transaction_id: Set(tx.id),
        amount_cents: Set(cents),
        payment_method_id: Set(payment_method),
        status: Set(WithdrawalStatus::Pending),
        reference: Set(None),
        processed_at: Set(None),
        created_at: Set(now),
    }
    .insert(&*txn)
    .await?;
    txn.commit().await?;
    Ok((tx, w))
}
