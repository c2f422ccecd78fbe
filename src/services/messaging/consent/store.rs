//! Suppressions and the consent history: every change of a recipient's consent is one
//! transaction that moves the suppression, keeps the audit row and writes the
//! `contact.opted_out` / `contact.opted_in` deliveries, or changes nothing at all.

use super::super::messages::domain::Channel;
use super::super::webhooks::events::{self, Emitted};
use super::domain::Address;
use crate::core::error::ApiError;
use crate::core::page::{self, Page, Window};
use chrono::{DateTime, Utc};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbErr, EntityTrait, QueryFilter, QueryOrder, QuerySelect, Set,
    TryInsertResult,
};
use serde_json::json;
use std::collections::HashSet;
use switchboard_entities::messaging::consent_event::{self, ConsentAction};
use switchboard_entities::messaging::suppression::{self, ConsentSource};
use uuid::Uuid;

/// What changed a recipient's consent, and the message that did, if any.
#[derive(Debug, Clone)]
pub struct Cause {
    pub source: ConsentSource,
    pub reason: String,
    pub message_id: Option<Uuid>,
}

/// Addresses looked up per statement: well under every backend's bound-parameter limit.
const CHUNK: usize = 500;

/// The workspace's suppressions, newest first, of one channel when asked.
pub async fn list(
    db: &impl ConnectionTrait,
    workspace: Uuid,
    channel: Option<Channel>,
    window: Window,
) -> Result<Page<suppression::Model>, ApiError> {
    let mut find =
        suppression::Entity::find().filter(suppression::Column::WorkspaceId.eq(workspace));
    if let Some(c) = channel {
        find = find.filter(suppression::Column::Channel.eq(c.as_str()));
    }
    let newest_first = find
        .order_by_desc(suppression::Column::CreatedAt)
        .order_by_desc(suppression::Column::Id);
    page::fetch(newest_first, db, window).await
}

/// Which of `addresses` (already normalised, one channel) the workspace may not send to: one
/// indexed statement per 500 addresses, never a look-up per recipient.
pub async fn suppressed_among<C: ConnectionTrait>(
    db: &C,
    workspace_id: Uuid,
    channel: &str,
    addresses: &[String],
) -> Result<HashSet<String>, DbErr> {
    let mut found = HashSet::new();
    for chunk in addresses.chunks(CHUNK) {
        let rows: Vec<String> = suppression::Entity::find()
            .select_only()
            .column(suppression::Column::Address)
            .filter(suppression::Column::WorkspaceId.eq(workspace_id))
            .filter(suppression::Column::Channel.eq(channel))
            .filter(suppression::Column::Address.is_in(chunk.iter().cloned()))
            .into_tuple()
            .all(db)
            .await?;
        found.extend(rows);
    }
    Ok(found)
}

pub async fn find<C: ConnectionTrait>(
    db: &C,
    workspace_id: Uuid,
    a: &Address,
) -> Result<Option<suppression::Model>, DbErr> {
    suppression::Entity::find()
        .filter(suppression::Column::WorkspaceId.eq(workspace_id))
        .filter(suppression::Column::Channel.eq(a.channel.as_str()))
        .filter(suppression::Column::Address.eq(a.address.as_str()))
        .one(db)
        .await
}

/// The address's consent changes, oldest first.
pub async fn history<C: ConnectionTrait>(
    db: &C,
    workspace_id: Uuid,
    a: &Address,
) -> Result<Vec<consent_event::Model>, DbErr> {
    use sea_orm::QueryOrder;
    consent_event::Entity::find()
        .filter(consent_event::Column::WorkspaceId.eq(workspace_id))
        .filter(consent_event::Column::Channel.eq(a.channel.as_str()))
        .filter(consent_event::Column::Address.eq(a.address.as_str()))
        .order_by_asc(consent_event::Column::CreatedAt)
        .order_by_asc(consent_event::Column::Id)
        .all(db)
        .await
}

/// Suppresses `a` for the workspace. `None` when it already was (nothing recorded again).
pub async fn opt_out<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    workspace_id: Uuid,
    a: &Address,
    cause: &Cause,
) -> Result<Option<(suppression::Model, Emitted)>, DbErr> {
    let row = suppression::Model {
        id: Uuid::new_v4(),
        workspace_id,
        channel: a.channel.as_str().to_owned(),
        address: a.address.clone(),
        source: cause.source,
        reason: cause.reason.clone(),
        message_id: cause.message_id,
        created_at: now,
    };
    // ON CONFLICT DO NOTHING: a unique violation would abort PostgreSQL's transaction.
    let inserted = suppression::Entity::insert(suppression::ActiveModel::from(row.clone()))
        .on_conflict_do_nothing_on([
            suppression::Column::WorkspaceId,
            suppression::Column::Channel,
            suppression::Column::Address,
        ])
        .exec_without_returning(db)
        .await?;
    if !matches!(inserted, TryInsertResult::Inserted(n) if n > 0) {
        return Ok(None);
    }
    let emitted = changed(db, now, workspace_id, a, ConsentAction::OptedOut, cause).await?;
    Ok(Some((row, emitted)))
}

/// Lifts the suppression of `a`. `None` when there was none.
pub async fn opt_in<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    workspace_id: Uuid,
    a: &Address,
    cause: &Cause,
) -> Result<Option<Emitted>, DbErr> {
    let removed = suppression::Entity::delete_many()
        .filter(suppression::Column::WorkspaceId.eq(workspace_id))
        .filter(suppression::Column::Channel.eq(a.channel.as_str()))
        .filter(suppression::Column::Address.eq(a.address.as_str()))
        .exec(db)
        .await?;
    if removed.rows_affected == 0 {
        return Ok(None);
    }
    changed(db, now, workspace_id, a, ConsentAction::OptedIn, cause)
        .await
        .map(Some)
}

/// The audit row and the customer event of one change.
async fn changed<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    workspace_id: Uuid,
    a: &Address,
    action: ConsentAction,
    cause: &Cause,
) -> Result<Emitted, DbErr> {
    consent_event::Entity::insert(consent_event::ActiveModel {
        id: Set(Uuid::new_v4()),
        workspace_id: Set(workspace_id),
        channel: Set(a.channel.as_str().to_owned()),
        address: Set(a.address.clone()),
        action: Set(action),
        source: Set(cause.source),
        reason: Set(cause.reason.clone()),
        message_id: Set(cause.message_id),
        created_at: Set(now),
    })
    .exec_without_returning(db)
    .await?;
    let event = match action {
        ConsentAction::OptedOut => "contact.opted_out",
        ConsentAction::OptedIn => "contact.opted_in",
    };
    events::emit(
        db,
        now,
        workspace_id,
        event,
        json!({
            "channel": a.channel.as_str(),
            "address": a.address,
            "source": cause.source,
            "reason": cause.reason,
            "message_id": cause.message_id,
            "timestamp": now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        }),
    )
    .await
}
