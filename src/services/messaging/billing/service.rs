//! Accepting messages: one transaction debits the workspace with a conditional UPDATE (so a
//! balance can never go below zero, however many sends race), writes the messages, one
//! ledger row each, the credit events and the idempotency record.

use super::domain::{credits_text, credits_value};

use super::super::error::{MessagingError, Result};
use super::super::messages::domain::Draft;
use super::super::messages::store::outbound;
use super::super::state::MessagingState;
use super::super::webhooks::events::{self, Emitted};
use super::idempotency::{self, IdempotencyKey};
use crate::core::db::is_unique_violation;
use actix_web::HttpResponse;
use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{ColumnTrait, ConnectionTrait, DbErr, EntityTrait, QueryFilter, QuerySelect, Set};
use serde_json::json;
use switchboard_entities::messaging::{idempotency_key, ledger_entry, message, workspace};
use uuid::Uuid;

/// What the caller answers once the messages are stored.
pub struct Answer {
    pub status: u16,
    pub body: String,
}

pub enum Committed {
    Created,
    /// A concurrent request with the same Idempotency-Key won; its answer is replayed.
    Replayed(HttpResponse),
}

const CHUNK: usize = 200;

/// Stores `drafts` (ids given) and charges for them, all or nothing.
pub async fn commit(
    st: &MessagingState,
    workspace_id: Uuid,
    drafts: &[Draft],
    ids: &[Uuid],
    now: DateTime<Utc>,
    bulk_id: Option<Uuid>,
    idem: Option<(&IdempotencyKey, &Answer)>,
) -> Result<Committed> {
    let total: i64 = drafts.iter().map(|d| d.cost).sum();
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    // The write comes first so that SQLite takes its write lock at once (no lock upgrade).
    let debited = workspace::Entity::update_many()
        .col_expr(
            workspace::Column::CreditsBalance,
            Expr::col(workspace::Column::CreditsBalance).sub(total),
        )
        .col_expr(workspace::Column::UpdatedAt, Expr::value(now))
        .filter(workspace::Column::Id.eq(workspace_id))
        .filter(workspace::Column::CreditsBalance.gte(total))
        .exec(&txn)
        .await?;
    let (balance, threshold) = workspace::Entity::find_by_id(workspace_id)
        .select_only()
        .column(workspace::Column::CreditsBalance)
        .column(workspace::Column::LowCreditThreshold)
        .into_tuple::<(i64, i64)>()
        .one(&txn)
        .await?
        .ok_or_else(|| MessagingError::Unauthorized("workspace no longer exists".into()))?;
    if debited.rows_affected != 1 {
        txn.rollback().await?;
        return Err(MessagingError::InsufficientCredits(format!(
            "insufficient credits: {} needed, {} held",
            credits_text(total),
            credits_text(balance)
        ))
        .into());
    }

    let mut emitted = Emitted::default();
    for (chunk_drafts, chunk_ids) in drafts.chunks(CHUNK).zip(ids.chunks(CHUNK)) {
        let rows = chunk_drafts
            .iter()
            .zip(chunk_ids)
            .map(|(d, id)| outbound(*id, workspace_id, d, bulk_id, now));
        message::Entity::insert_many(rows)
            .exec_without_returning(&txn)
            .await?;
        let ledger = chunk_drafts
            .iter()
            .zip(chunk_ids)
            .map(|(d, id)| ledger_entry::ActiveModel {
                id: Set(Uuid::new_v4()),
                workspace_id: Set(workspace_id),
                message_id: Set(Some(*id)),
                amount: Set(-d.cost),
                reason: Set("message".into()),
                created_at: Set(now),
            });
        ledger_entry::Entity::insert_many(ledger)
            .exec_without_returning(&txn)
            .await?;
    }
    // The dispatch jobs commit with the messages: a commit means they will be sent.
    super::super::messages::dispatch_job::enqueue(&st.core.jobs, &txn, ids).await?;
    emitted
        .extend(credit_events(&txn, now, workspace_id, balance + total, balance, threshold).await?);

    if let Some((key, answer)) = idem {
        let stored = idempotency_key::Entity::insert(idempotency_key::ActiveModel {
            id: Set(Uuid::new_v4()),
            workspace_id: Set(workspace_id),
            key: Set(key.key.clone()),
            request_hash: Set(key.request_hash.clone()),
            response_status: Set(i32::from(answer.status)),
            response_body: Set(answer.body.clone()),
            created_at: Set(now),
        })
        .exec_without_returning(&txn)
        .await;
        if let Err(e) = stored {
            txn.rollback().await?;
            if is_unique_violation(&e) {
                if let Some(row) = idempotency::find_row(st, workspace_id, &key.key).await? {
                    return idempotency::replay(row, key).map(Committed::Replayed);
                }
            }
            return Err(e.into());
        }
    }
    txn.commit().await?;
    emitted.notify(st);
    st.core.jobs.wake();
    Ok(Committed::Created)
}

/// credit.low once when the balance crosses below the threshold; credit.depleted when it
/// reaches zero.
pub async fn credit_events<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    workspace_id: Uuid,
    before: i64,
    after: i64,
    threshold: i64,
) -> Result<Emitted, DbErr> {
    let mut out = Emitted::default();
    if before >= threshold && after < threshold {
        out.extend(
            events::emit(
                db,
                now,
                workspace_id,
                "credit.low",
                json!({
                    "workspace_id": workspace_id,
                    "balance": credits_value(after),
                    "threshold": credits_value(threshold),
                }),
            )
            .await?,
        );
    }
    if before > 0 && after == 0 {
        out.extend(
            events::emit(
                db,
                now,
                workspace_id,
                "credit.depleted",
                json!({ "balance": credits_value(after) }),
            )
            .await?,
        );
    }
    Ok(out)
}

/// Gives back the cost of a message the provider refused (it never left).
pub async fn refund<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    workspace_id: Uuid,
    message_id: Uuid,
    amount: i64,
) -> Result<(), DbErr> {
    if amount <= 0 {
        return Ok(());
    }
    workspace::Entity::update_many()
        .col_expr(
            workspace::Column::CreditsBalance,
            Expr::col(workspace::Column::CreditsBalance).add(amount),
        )
        .col_expr(workspace::Column::UpdatedAt, Expr::value(now))
        .filter(workspace::Column::Id.eq(workspace_id))
        .exec(db)
        .await?;
    ledger_entry::Entity::insert(ledger_entry::ActiveModel {
        id: Set(Uuid::new_v4()),
        workspace_id: Set(workspace_id),
        message_id: Set(Some(message_id)),
        amount: Set(amount),
        reason: Set("refund".into()),
        created_at: Set(now),
    })
    .exec_without_returning(db)
    .await?;
    Ok(())
}
