//! The conversation's writes, each one transaction that commits before anything is
//! announced. Sequence numbers come from an atomic `last_seq + 1` on the conversation row,
//! and receipts from `UPDATE … WHERE read_at IS NULL … RETURNING`, so two writers (two
//! processes) can neither share a number nor both announce one receipt.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, DatabaseConnection, DbErr, EntityTrait, QueryFilter, Set,
};
use switchboard_entities::marketplace::{conversation, message};
use switchboard_entities::txn::begin_write;
use uuid::Uuid;

#[derive(Debug, thiserror::Error)]
pub enum ConversationError {
    #[error("no such conversation")]
    NotFound,
    #[error("database: {0}")]
    Db(#[from] DbErr),
    #[error("the conversation is busy; try again")]
    Unavailable,
}

/// Appends a message with the conversation's next sequence number.
pub(super) async fn append(
    db: &DatabaseConnection,
    conversation_id: Uuid,
    sender: Uuid,
    receiver: Uuid,
    text: String,
    now: DateTime<Utc>,
) -> Result<message::Model, ConversationError> {
    let txn = begin_write(db).await?;
    // One statement takes the next number and makes this the conversation's last message
    // (every statement is a round trip to SQLite's connection thread).
    let id = Uuid::new_v4();
    let bumped = conversation::Entity::update_many()
        .col_expr(
            conversation::Column::LastSeq,
            Expr::col(conversation::Column::LastSeq).add(1),
        )
        .col_expr(conversation::Column::LastMessageId, Expr::value(id))
        .col_expr(conversation::Column::LastMessageAt, Expr::value(now))
        .filter(conversation::Column::Id.eq(conversation_id))
        .exec_with_returning(&txn)
        .await?;
    let conv = bumped
        .into_iter()
        .next()
        .ok_or(ConversationError::NotFound)?;
    let created = message::ActiveModel {
        id: Set(id),
        conversation_id: Set(conversation_id),
        seq: Set(conv.last_seq),
        sender_id: Set(sender),
        receiver_id: Set(receiver),
        text: Set(text),
        created_at: Set(now),
        read_at: Set(None),
    }
    .insert(&txn)
    .await?;
    txn.commit().await?;
    Ok(created)
}

/// Marks read what `reader` received in the conversation and had not read (`only`: just
/// that message). Answers the messages this call read; an already read message is not
/// among them, so its receipt is never sent twice.
pub(super) async fn mark_read(
    db: &DatabaseConnection,
    conversation_id: Uuid,
    reader: Uuid,
    only: Option<Uuid>,
    now: DateTime<Utc>,
) -> Result<Vec<message::Model>, ConversationError> {
    let txn = begin_write(db).await?;
    let mut update = message::Entity::update_many()
        .col_expr(message::Column::ReadAt, Expr::value(now))
        .filter(message::Column::ConversationId.eq(conversation_id))
        .filter(message::Column::ReceiverId.eq(reader))
        .filter(message::Column::ReadAt.is_null());
    if let Some(id) = only {
        update = update.filter(message::Column::Id.eq(id));
    }
    let read = update.exec_with_returning(&txn).await?;
    txn.commit().await?;
    Ok(read)
}
