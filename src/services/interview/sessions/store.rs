//! Sessions' rows the HTTP handlers read and remove (the session actor writes its own).

use crate::core::error::ApiError;
use crate::core::page::{self, Page, Window};
use chrono::{DateTime, Utc};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DatabaseConnection, DbErr, EntityTrait, PaginatorTrait,
    QueryFilter, QueryOrder, QuerySelect,
};
use switchboard_entities::interview::{message, report as report_row, session};
use uuid::Uuid;

/// A user's sessions, newest first.
pub async fn by_user(
    db: &impl ConnectionTrait,
    user_id: &str,
    window: Window,
) -> Result<Page<session::Model>, ApiError> {
    let newest_first = session::Entity::find()
        .filter(session::Column::UserId.eq(user_id))
        .order_by_desc(session::Column::CreatedAt)
        .order_by_desc(session::Column::Id);
    page::fetch(newest_first, db, window).await
}

/// Removes a session with its messages and report, all or nothing; false when there was no
/// such session.
pub async fn delete(db: &DatabaseConnection, id: Uuid) -> Result<bool, DbErr> {
    let txn = crate::core::db::begin_write(db).await?;
    // Children first: SQLite enforces the cascade only when foreign keys are on.
    message::Entity::delete_many()
        .filter(message::Column::SessionId.eq(id))
        .exec(&*txn)
        .await?;
    report_row::Entity::delete_by_id(id).exec(&*txn).await?;
    let removed = session::Entity::delete_by_id(id)
        .exec(&*txn)
        .await?
        .rows_affected;
    txn.commit().await?;
    Ok(removed > 0)
}

/// How many messages the session has, and its latest `limit` before `before`, oldest first.
pub async fn messages(
    db: &impl ConnectionTrait,
    session_id: Uuid,
    before: Option<DateTime<Utc>>,
    limit: u64,
) -> Result<(u64, Vec<message::Model>), DbErr> {
    let all = message::Entity::find().filter(message::Column::SessionId.eq(session_id));
    let total = all.clone().count(db).await?;
    let mut page = all;
    if let Some(b) = before {
        page = page.filter(message::Column::CreatedAt.lt(b));
    }
    let mut rows = page
        .order_by_desc(message::Column::SequenceNumber)
        .limit(limit)
        .all(db)
        .await?;
    rows.reverse();
    Ok((total, rows))
}
