//! A workspace's own rows as its account reads them: the workspace and its credit ledger.

use crate::core::error::ApiError;
use crate::core::page::{self, Page, Window};
use sea_orm::{ColumnTrait, ConnectionTrait, DbErr, EntityTrait, QueryFilter, QueryOrder};
use switchboard_entities::messaging::{ledger_entry, workspace};
use uuid::Uuid;

/// The workspace as stored now (an extractor's copy may predate a debit in flight).
pub async fn workspace(
    db: &impl ConnectionTrait,
    id: Uuid,
) -> Result<Option<workspace::Model>, DbErr> {
    workspace::Entity::find_by_id(id).one(db).await
}

/// The workspace's ledger, newest first, of one message and one reason when asked.
pub async fn ledger(
    db: &impl ConnectionTrait,
    workspace: Uuid,
    message: Option<Uuid>,
    reason: Option<&str>,
    window: Window,
) -> Result<Page<ledger_entry::Model>, ApiError> {
    let mut find =
        ledger_entry::Entity::find().filter(ledger_entry::Column::WorkspaceId.eq(workspace));
    if let Some(id) = message {
        find = find.filter(ledger_entry::Column::MessageId.eq(id));
    }
    if let Some(r) = reason {
        find = find.filter(ledger_entry::Column::Reason.eq(r));
    }
    let newest_first = find
        .order_by_desc(ledger_entry::Column::CreatedAt)
        .order_by_desc(ledger_entry::Column::Id);
    page::fetch(newest_first, db, window).await
}
