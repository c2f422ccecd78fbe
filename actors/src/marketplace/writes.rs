//! The conversation's writes, each one statement that commits before anything is
//! announced. Sequence numbers come from the conversation row's `last_seq + 1` (unique per
//! conversation), and receipts from `UPDATE … WHERE read_at IS NULL … RETURNING`, so two
//! writers (two processes) can neither share a number nor both announce one receipt.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, ExprTrait, LockType, Query};
use sea_orm::{ColumnTrait, DatabaseConnection, DbErr, EntityTrait, QueryFilter, SqlErr};
use switchboard_entities::marketplace::{conversation, message};
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

/// Appends a message with the conversation's next sequence number, in one statement:
/// `INSERT … SELECT last_seq + 1 FROM the conversation … RETURNING`, and the database's
/// trigger (migration m20261129_000001) makes it the conversation's last message in the same
/// statement. A statement is atomic and, on SQLite, takes the write lock before it reads;
/// on PostgreSQL `FOR UPDATE` makes a second writer wait for the first's number. One
/// statement is one round trip to SQLite's connection thread instead of four.
///
/// The message's id is the caller's: appending it again (a command run twice because the
/// node running it died before answering) answers the message stored the first time.
pub(super) async fn append(
    db: &DatabaseConnection,
    conversation_id: Uuid,
    message_id: Uuid,
    sender: Uuid,
    receiver: Uuid,
    text: String,
    now: DateTime<Utc>,
) -> Result<message::Model, ConversationError> {
    use message::Column as M;
    let next = Query::select()
        .expr(Expr::val(message_id))
        .column(conversation::Column::Id)
        .expr(Expr::col(conversation::Column::LastSeq).add(1))
        .expr(Expr::val(sender))
        .expr(Expr::val(receiver))
        .expr(Expr::val(text))
        .expr(Expr::val(now))
        .from(conversation::Entity)
        .and_where(Expr::col(conversation::Column::Id).eq(conversation_id))
        .lock(LockType::Update)
        .to_owned();
    let insert = Query::insert()
        .into_table(message::Entity)
        .columns([
            M::Id,
            M::ConversationId,
            M::Seq,
            M::SenderId,
            M::ReceiverId,
            M::Text,
            M::CreatedAt,
        ])
        .select_from(next)
        .map_err(|e| DbErr::Custom(e.to_string()))?
        .returning_all()
        .to_owned();
    let stmt = db.get_database_backend().build(&insert);
    match message::Entity::find().from_raw_sql(stmt).one(db).await {
        Ok(created) => created.ok_or(ConversationError::NotFound),
        Err(e) if matches!(e.sql_err(), Some(SqlErr::UniqueConstraintViolation(_))) => {
            message::Entity::find_by_id(message_id)
                .filter(message::Column::ConversationId.eq(conversation_id))
                .filter(message::Column::SenderId.eq(sender))
                .one(db)
                .await?
                .ok_or(ConversationError::Db(e))
        }
        Err(e) => Err(e.into()),
    }
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
    // One UPDATE is atomic on its own: no transaction, one round trip.
    let mut update = message::Entity::update_many()
        .col_expr(message::Column::ReadAt, Expr::value(now))
        .filter(message::Column::ConversationId.eq(conversation_id))
        .filter(message::Column::ReceiverId.eq(reader))
        .filter(message::Column::ReadAt.is_null());
    if let Some(id) = only {
        update = update.filter(message::Column::Id.eq(id));
    }
    Ok(update.exec_with_returning(db).await?)
}
