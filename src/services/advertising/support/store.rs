//! Tickets' rows. Who acts on a ticket decides what they reach: a poster only their own
//! tickets (another's answers as an unknown id), an administrator (part 2) any.

use super::super::error::{AdvertisingError, Record, Result};
use super::super::state::AdvertisingState;
use super::domain::{MessageText, NewTicket, TicketStatus};
use crate::core::page::{Page, Window};
use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, Select,
    Set,
};
use switchboard_entities::advertising::support_message::AuthorKind;
use switchboard_entities::advertising::{support_message as message, support_ticket as ticket};
use uuid::Uuid;

/// Who acts on a ticket; a message records them as its author.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Actor {
    Poster(Uuid),
    Admin(Uuid),
}

impl Actor {
    pub fn kind(self) -> AuthorKind {
        match self {
            Self::Poster(_) => AuthorKind::Poster,
            Self::Admin(_) => AuthorKind::Admin,
        }
    }

    fn id(self) -> Uuid {
        match self {
            Self::Poster(id) | Self::Admin(id) => id,
        }
    }

    /// Narrows `q` to the tickets this actor may reach.
    fn scope<S: QueryFilter>(self, q: S) -> S {
        match self {
            Self::Poster(id) => q.filter(ticket::Column::PosterId.eq(id)),
            Self::Admin(_) => q,
        }
    }
}

fn not_found() -> crate::core::error::ApiError {
    AdvertisingError::NotFound(Record::Ticket).into()
}

fn new_message(
    ticket: Uuid,
    by: Actor,
    text: MessageText,
    at: DateTime<Utc>,
) -> message::ActiveModel {
    message::ActiveModel {
        id: Set(Uuid::new_v4()),
        ticket_id: Set(ticket),
        author_kind: Set(by.kind()),
        author_id: Set(by.id()),
        body: Set(text.into_inner()),
        created_at: Set(at),
    }
}

/// Opens a ticket with its first message.
pub async fn create(
    st: &AdvertisingState,
    poster: Uuid,
    t: NewTicket,
) -> Result<(ticket::Model, message::Model)> {
    let now = st.core.now();
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let row = ticket::ActiveModel {
        id: Set(Uuid::new_v4()),
        poster_id: Set(poster),
        subject: Set(t.subject),
        category: Set(t.category),
        screenshot_url: Set(t.screenshot_url),
        status: Set(TicketStatus::Open),
        closed_at: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&*txn)
    .await?;
    let first = new_message(row.id, Actor::Poster(poster), t.message, now)
        .insert(&*txn)
        .await?;
    txn.commit().await?;
    Ok((row, first))
}

/// The tickets `by` reaches, newest first, of one status or both.
pub async fn list(
    st: &AdvertisingState,
    by: Actor,
    status: Option<TicketStatus>,
    window: Window,
) -> Result<Page<ticket::Model>> {
    let mut select = by.scope(ticket::Entity::find());
    if let Some(status) = status {
        select = select.filter(ticket::Column::Status.eq(status));
    }
    let newest_first = select
        .order_by_desc(ticket::Column::CreatedAt)
        .order_by_desc(ticket::Column::Id);
    crate::core::page::fetch(newest_first, &st.core.db, window).await
}

fn one(by: Actor, id: Uuid) -> Select<ticket::Entity> {
    by.scope(ticket::Entity::find_by_id(id))
}

/// The messages of a ticket, oldest first (their times strictly increase, see `add`).
async fn messages(db: &impl ConnectionTrait, ticket: Uuid) -> Result<Vec<message::Model>> {
    Ok(message::Entity::find()
        .filter(message::Column::TicketId.eq(ticket))
        .order_by_asc(message::Column::CreatedAt)
        .all(db)
        .await?)
}

/// A ticket `by` reaches, with its messages.
pub async fn get(
    st: &AdvertisingState,
    by: Actor,
    id: Uuid,
) -> Result<(ticket::Model, Vec<message::Model>)> {
    let t = one(by, id).one(&st.core.db).await?.ok_or_else(not_found)?;
    let msgs = messages(&st.core.db, t.id).await?;
    Ok((t, msgs))
}

/// Adds a message to an open ticket. The ticket's row is updated first, only while it is
/// open: that update waits for (or wins over) a close racing it, so no message lands on a
/// closed ticket. A message is timed after the ticket's last one even when the clocks of
/// the nodes that wrote them disagree, so the thread always reads in order.
pub async fn add(
    st: &AdvertisingState,
    by: Actor,
    id: Uuid,
    text: MessageText,
) -> Result<message::Model> {
    let now = st.core.now();
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let touched = by
        .scope(ticket::Entity::update_many())
        .col_expr(ticket::Column::UpdatedAt, Expr::value(now))
        .filter(ticket::Column::Id.eq(id))
        .filter(ticket::Column::Status.eq(TicketStatus::Open))
        .exec(&*txn)
        .await?;
    if touched.rows_affected != 1 {
        return Err(match one(by, id).one(&*txn).await? {
            Some(_) => AdvertisingError::TicketClosed.into(),
            None => not_found(),
        });
    }
    let last = message::Entity::find()
        .filter(message::Column::TicketId.eq(id))
        .order_by_desc(message::Column::CreatedAt)
        .one(&*txn)
        .await?
        .map(|m| m.created_at);
    let at = match last {
        Some(last) if last >= now => last + Duration::milliseconds(1),
        _ => now,
    };
    let written = new_message(id, by, text, at).insert(&*txn).await?;
    txn.commit().await?;
    Ok(written)
}

/// Closes a ticket; closing a closed ticket changes nothing (its first close stands).
pub async fn close(
    st: &AdvertisingState,
    by: Actor,
    id: Uuid,
) -> Result<(ticket::Model, Vec<message::Model>)> {
    let now = st.core.now();
    by.scope(ticket::Entity::update_many())
        .col_expr(ticket::Column::Status, Expr::value(TicketStatus::Closed))
        .col_expr(ticket::Column::ClosedAt, Expr::value(now))
        .col_expr(ticket::Column::UpdatedAt, Expr::value(now))
        .filter(ticket::Column::Id.eq(id))
        .filter(ticket::Column::Status.eq(TicketStatus::Open))
        .exec(&st.core.db)
        .await?;
    get(st, by, id).await
}
