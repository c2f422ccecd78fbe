//! Direct messages between two users. Writes (sending, marking read) go through the
//! conversation's actor; reads and counts come straight from the database, which is the
//! truth: unread counts are indexed `COUNT`s of `read_at IS NULL`, never stored.

use crate::core::page::{self, Page, Window};
use crate::services::marketplace::error::{MarketplaceError, Result};
use crate::services::marketplace::state::MarketplaceState;
use sea_orm::sea_query::{Expr, ExprTrait, OnConflict};
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder,
    QuerySelect, Set,
};
use std::collections::HashMap;
use switchboard_actors::marketplace::ConversationError;
use switchboard_entities::marketplace::{conversation, message, user};
use uuid::Uuid;

/// A conversation as one participant sees it.
pub struct ConversationView {
    pub conversation: conversation::Model,
    pub other: Option<user::Model>,
    pub last: Option<message::Model>,
    pub unread: u64,
}

/// The pair as stored: the smaller id first.
fn ordered(a: Uuid, b: Uuid) -> (Uuid, Uuid) {
    if a < b {
        (a, b)
    } else {
        (b, a)
    }
}

/// The other participant, who must exist.
async fn participant(db: &impl ConnectionTrait, id: Uuid) -> Result<user::Model> {
    Ok(user::Entity::find_by_id(id)
        .one(db)
        .await?
        .ok_or(MarketplaceError::UserNotFound)?)
}

async fn between(
    db: &impl ConnectionTrait,
    me: Uuid,
    other: Uuid,
) -> Result<Option<conversation::Model>> {
    let (a, b) = ordered(me, other);
    Ok(conversation::Entity::find()
        .filter(conversation::Column::UserA.eq(a))
        .filter(conversation::Column::UserB.eq(b))
        .one(db)
        .await?)
}

/// The caller's conversation with `other` (who must exist), if they have exchanged anything.
async fn with(st: &MarketplaceState, me: Uuid, other: Uuid) -> Result<Option<conversation::Model>> {
    let db = &st.core.db;
    participant(db, other).await?;
    between(db, me, other).await
}

/// The id of the pair's conversation: derived from the pair, so that sending needs no
/// lookup. (Rows created before ids were derived keep theirs and are found by the pair.)
fn pair_id(me: Uuid, other: Uuid) -> Uuid {
    let (a, b) = ordered(me, other);
    let mut name = [0u8; 32];
    name[..16].copy_from_slice(a.as_bytes());
    name[16..].copy_from_slice(b.as_bytes());
    Uuid::new_v5(&CONVERSATION_NAMESPACE, &name)
}

/// The namespace of derived conversation ids (a fixed random UUID).
const CONVERSATION_NAMESPACE: Uuid = Uuid::from_u128(0x6c2f_95d1_0b8e_4e57_9a43_d2f1_7c08_b3e6);

/// The pair's conversation, created on first use (a concurrent creator wins harmlessly).
async fn open(st: &MarketplaceState, me: Uuid, other: Uuid) -> Result<conversation::Model> {
    let db = &st.core.db;
    if let Some(c) = between(db, me, other).await? {
        return Ok(c);
    }
    participant(db, other).await?;
    let (a, b) = ordered(me, other);
    conversation::Entity::insert(conversation::ActiveModel {
        id: Set(pair_id(a, b)),
        user_a: Set(a),
        user_b: Set(b),
        last_seq: Set(0),
        last_message_id: Set(None),
        last_message_at: Set(None),
        created_at: Set(st.core.now()),
    })
    // No conflict target: two first messages of a pair insert the same derived id, and on
    // PostgreSQL a target of (user_a, user_b) leaves the id's own unique index to raise
    // "duplicate key" when both inserts pass the check before either commits.
    .on_conflict(OnConflict::new().do_nothing().to_owned())
    .try_insert()
    .exec(db)
    .await?;
    Ok(between(db, me, other)
        .await?
        .ok_or(MarketplaceError::UserNotFound)?)
}

/// Sends `text` (already checked) from `sender` to `receiver`, who must exist and differ.
pub async fn send(
    st: &MarketplaceState,
    sender: Uuid,
    receiver: Uuid,
    text: String,
) -> Result<message::Model> {
    if sender == receiver {
        return Err(MarketplaceError::invalid(
            "receiverId",
            &receiver.to_string(),
            "you cannot send a message to yourself",
        )
        .into());
    }
    // A conversation's participants exist (its rows go with theirs), so a message to a
    // pair that already talks is one statement; only the first one (or a conversation
    // stored under an older id) looks the receiver and the pair up.
    match st
        .conversations
        .post(pair_id(sender, receiver), sender, receiver, text.clone())
        .await
    {
        Err(ConversationError::NotFound) => {}
        done => return Ok(done?),
    }
    let conv = open(st, sender, receiver).await?;
    Ok(st
        .conversations
        .post(conv.id, sender, receiver, text)
        .await?)
}

fn keyed<T>(rows: Vec<T>, key: impl Fn(&T) -> Uuid) -> HashMap<Uuid, T> {
    rows.into_iter().map(|r| (key(&r), r)).collect()
}

/// The caller's conversations with at least one message, newest message first.
pub async fn conversations(
    st: &MarketplaceState,
    me: Uuid,
    window: Window,
) -> Result<Page<ConversationView>> {
    let db = &st.core.db;
    let select = conversation::Entity::find()
        .filter(
            Condition::any()
                .add(conversation::Column::UserA.eq(me))
                .add(conversation::Column::UserB.eq(me)),
        )
        .filter(conversation::Column::LastMessageId.is_not_null())
        .order_by_desc(conversation::Column::LastMessageAt)
        .order_by_desc(conversation::Column::Id);
    let page = page::fetch(select, db, window).await?;
    let ids: Vec<Uuid> = page.items.iter().map(|c| c.id).collect();
    let others: Vec<Uuid> = page.items.iter().map(|c| c.other(me)).collect();
    let lasts: Vec<Uuid> = page
        .items
        .iter()
        .filter_map(|c| c.last_message_id)
        .collect();
    let users = user::Entity::find().filter(user::Column::Id.is_in(others));
    let mut users = keyed(users.all(db).await?, |u| u.id);
    let last = message::Entity::find().filter(message::Column::Id.is_in(lasts));
    let mut last = keyed(last.all(db).await?, |m| m.conversation_id);
    let unread: HashMap<Uuid, i64> = unread_of(me)
        .filter(message::Column::ConversationId.is_in(ids))
        .select_only()
        .column(message::Column::ConversationId)
        .column_as(Expr::col(message::Column::Id).count(), "n")
        .group_by(message::Column::ConversationId)
        .into_tuple::<(Uuid, i64)>()
        .all(db)
        .await?
        .into_iter()
        .collect();
    Ok(page.map(|c| ConversationView {
        other: users.remove(&c.other(me)),
        last: last.remove(&c.id),
        unread: u64::try_from(unread.get(&c.id).copied().unwrap_or(0)).unwrap_or(0),
        conversation: c,
    }))
}

/// The messages between the caller and `other`, newest first (descending sequence), so
/// page 1 holds the latest.
pub async fn messages(
    st: &MarketplaceState,
    me: Uuid,
    other: Uuid,
    window: Window,
) -> Result<Page<message::Model>> {
    let Some(conv) = with(st, me, other).await? else {
        return Ok(Page {
            items: Vec::new(),
            total: 0,
            window,
        });
    };
    let select = message::Entity::find()
        .filter(message::Column::ConversationId.eq(conv.id))
        .order_by_desc(message::Column::Seq);
    page::fetch(select, &st.core.db, window).await
}

/// Marks one message read by its receiver; already read, it stays as it was.
pub async fn read_one(st: &MarketplaceState, me: Uuid, id: Uuid) -> Result<message::Model> {
    let found = message::Entity::find_by_id(id)
        .one(&st.core.db)
        .await?
        .filter(|m| m.sender_id == me || m.receiver_id == me)
        .ok_or(MarketplaceError::MessageNotFound)?;
    if found.receiver_id != me {
        return Err(MarketplaceError::NotReceiver.into());
    }
    let read = st
        .conversations
        .read(found.conversation_id, me, Some(id))
        .await?;
    match read.into_iter().next() {
        Some(now_read) => Ok(now_read),
        // Read before (perhaps just now, from another tab): as stored.
        None => Ok(message::Entity::find_by_id(id)
            .one(&st.core.db)
            .await?
            .unwrap_or(found)),
    }
}

/// Marks read everything the caller received from `other`; answers how many were unread.
pub async fn read_all(st: &MarketplaceState, me: Uuid, other: Uuid) -> Result<usize> {
    let Some(conv) = with(st, me, other).await? else {
        return Ok(0);
    };
    Ok(st.conversations.read(conv.id, me, None).await?.len())
}

/// What `me` received and has not read.
fn unread_of(me: Uuid) -> sea_orm::Select<message::Entity> {
    message::Entity::find()
        .filter(message::Column::ReceiverId.eq(me))
        .filter(message::Column::ReadAt.is_null())
}

/// The caller's unread messages, all conversations together.
pub async fn unread_total(st: &MarketplaceState, me: Uuid) -> Result<u64> {
    Ok(unread_of(me).count(&st.core.db).await?)
}

/// The caller's unread messages from `other`.
pub async fn unread_with(st: &MarketplaceState, me: Uuid, other: Uuid) -> Result<u64> {
    let Some(conv) = with(st, me, other).await? else {
        return Ok(0);
    };
    Ok(unread_of(me)
        .filter(message::Column::ConversationId.eq(conv.id))
        .count(&st.core.db)
        .await?)
}
