//! A message's moves after its hand-over — sent, delivered, failed — and the events each move
//! emits, whoever reports it (the dispatcher, a carrier callback, a delivery report job,
//! reconciliation). Every move is a conditional UPDATE that only goes forward.

use super::super::state::MessagingState;
use super::super::webhooks::events::{self, Emitted};
use super::domain::Status;
use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, DatabaseTransaction, DbErr, EntityTrait, QueryFilter, UpdateMany};
use serde_json::json;
use std::collections::HashMap;
use switchboard_entities::messaging::message;
use uuid::Uuid;

/// Records the provider id a carrier callback names for a message that has none yet (the
/// callback can overtake the commit of the hand-over). Returns whether it was recorded.
pub async fn adopt_provider_id(
    st: &MessagingState,
    message_id: Uuid,
    provider_message_id: &str,
) -> Result<bool, DbErr> {
    let res = message::Entity::update_many()
        .col_expr(
            message::Column::ProviderMessageId,
            Expr::value(provider_message_id),
        )
        .filter(message::Column::Id.eq(message_id))
        .filter(message::Column::Direction.eq("outbound"))
        .filter(message::Column::ProviderMessageId.is_null())
        .exec(&st.core.db)
        .await?;
    Ok(res.rows_affected == 1)
}

/// The move to `status` stamped now in `at` (which also ends any claim), for the caller to
/// make conditional.
pub fn moved_to(
    status: Status,
    at: message::Column,
    now: DateTime<Utc>,
) -> UpdateMany<message::Entity> {
    message::Entity::update_many()
        .col_expr(message::Column::Status, Expr::value(status))
        .col_expr(at, Expr::value(now))
        .col_expr(message::Column::UpdatedAt, Expr::value(now))
        .col_expr(
            message::Column::ClaimExpiresAt,
            Expr::value(Option::<DateTime<Utc>>::None),
        )
}

/// The move to `failed` with its error, for the caller to make conditional.
pub fn to_failed(code: &str, text: &str, now: DateTime<Utc>) -> UpdateMany<message::Entity> {
    moved_to(Status::Failed, message::Column::FailedAt, now)
        .col_expr(message::Column::ErrorCode, Expr::value(code))
        .col_expr(message::Column::ErrorMessage, Expr::value(text))
}

/// Moves message `id` to `status` if it is in one of the states before it.
async fn forward<C: sea_orm::ConnectionTrait>(
    status: Status,
    at: message::Column,
    id: Uuid,
    now: DateTime<Utc>,
    db: &C,
) -> Result<bool, DbErr> {
    let res = moved_to(status, at, now)
        .filter(message::Column::Id.eq(id))
        .filter(message::Column::Status.is_in(status.comes_from().iter().copied()))
        .exec(db)
        .await?;
    Ok(res.rows_affected == 1)
}

async fn mark_failed<C: sea_orm::ConnectionTrait>(
    db: &C,
    id: Uuid,
    from: &[Status],
    code: &str,
    text: &str,
    now: DateTime<Utc>,
) -> Result<bool, DbErr> {
    let res = to_failed(code, text, now)
        .filter(message::Column::Id.eq(id))
        .filter(message::Column::Status.is_in(from.iter().copied()))
        .exec(db)
        .await?;
    Ok(res.rows_affected == 1)
}

/// message.<status> of `m`: the fields every message event carries, then the event's own.
async fn message_event<C: sea_orm::ConnectionTrait>(
    db: &C,
    m: &message::Model,
    status: Status,
    error: Option<(&str, &str)>,
    now: DateTime<Utc>,
    own: serde_json::Value,
) -> Result<Emitted, DbErr> {
    let data = events::message_data(m.id, &m.channel, &m.recipient, status, error, now, own);
    let event = format!("message.{status}");
    events::emit(db, now, m.workspace_id, &event, data).await
}

pub async fn sent_event<C: sea_orm::ConnectionTrait>(
    db: &C,
    m: &message::Model,
    provider_message_id: &str,
    now: DateTime<Utc>,
) -> Result<Emitted, DbErr> {
    let own = json!({ "provider_message_id": provider_message_id });
    message_event(db, m, Status::Sent, None, now, own).await
}

pub async fn failed_event<C: sea_orm::ConnectionTrait>(
    db: &C,
    m: &message::Model,
    code: &str,
    text: &str,
    now: DateTime<Utc>,
) -> Result<Emitted, DbErr> {
    message_event(db, m, Status::Failed, Some((code, text)), now, json!({})).await
}

/// A reported move: the message with this provider id to `status`.
pub struct Report<'a> {
    pub provider_message_id: &'a str,
    pub status: Status,
    pub error_code: Option<&'a str>,
    pub error_message: Option<&'a str>,
}

/// Moves the message with this provider id forward to `status` (never backwards) and emits
/// message.<status>. Returns whether it moved.
pub async fn apply_status(
    st: &MessagingState,
    provider_message_id: &str,
    status: Status,
    error_code: Option<&str>,
    error_message: Option<&str>,
) -> Result<bool, DbErr> {
    let report = Report {
        provider_message_id,
        status,
        error_code,
        error_message,
    };
    Ok(apply_reports(st, &[report]).await?.first() == Some(&true))
}

/// [`apply_status`] for many reports in one transaction: whether each moved, in order.
pub async fn apply_reports(
    st: &MessagingState,
    reports: &[Report<'_>],
) -> Result<Vec<bool>, DbErr> {
    let ids = reports.iter().map(|r| r.provider_message_id);
    let found: HashMap<String, message::Model> = message::Entity::find()
        .filter(message::Column::ProviderMessageId.is_in(ids))
        .filter(message::Column::Direction.eq("outbound"))
        .all(&st.core.db)
        .await?
        .into_iter()
        .filter_map(|m| Some((m.provider_message_id.clone()?, m)))
        .collect();
    let mut moved = Vec::with_capacity(reports.len());
    if found.is_empty() {
        moved.resize(reports.len(), false);
        return Ok(moved);
    }
    let now = st.core.now();
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let mut emitted = Emitted::default();
    for report in reports {
        let Some(m) = found.get(report.provider_message_id) else {
            moved.push(false);
            continue;
        };
        let e = apply(&txn, m, report, now).await?;
        moved.push(e.is_some());
        emitted.extend(e.unwrap_or_default());
    }
    txn.commit().await?;
    emitted.notify(st);
    Ok(moved)
}

/// One report's move of `m` and its event; `None` when it did not move.
async fn apply(
    txn: &DatabaseTransaction,
    m: &message::Model,
    report: &Report<'_>,
    now: DateTime<Utc>,
) -> Result<Option<Emitted>, DbErr> {
    let status = report.status;
    Ok(match status {
        // Nothing reports these: a report moves a message on from them.
        Status::Queued | Status::Sending | Status::Received => None,
        Status::Sent => {
            if !forward(status, message::Column::SentAt, m.id, now, txn).await? {
                return Ok(None);
            }
            Some(sent_event(txn, m, report.provider_message_id, now).await?)
        }
        Status::Delivered => {
            if !forward(status, message::Column::DeliveredAt, m.id, now, txn).await? {
                return Ok(None);
            }
            let at = now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
            let own = json!({ "delivered_at": at });
            Some(message_event(txn, m, Status::Delivered, None, now, own).await?)
        }
        Status::Failed => {
            let code = report.error_code.unwrap_or("carrier_failed");
            let text = report
                .error_message
                .unwrap_or("the carrier reported the message as failed");
            if !mark_failed(txn, m.id, status.comes_from(), code, text, now).await? {
                return Ok(None);
            }
            Some(failed_event(txn, m, code, text, now).await?)
        }
    })
}
