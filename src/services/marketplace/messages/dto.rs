//! Wire shapes of direct messages (camelCase, as the spec names them).

use crate::services::marketplace::messages::store::ConversationView;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use switchboard_entities::marketplace::message;
use utoipa::ToSchema;
use uuid::Uuid;

/// Longest message text, in characters.
pub const MESSAGE_CHARS: usize = 2000;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SendMessageRequest {
    /// The user the message is for; not the sender.
    #[schema(format = Uuid)]
    pub receiver_id: Option<String>,
    /// 1 to 2000 characters (trimmed).
    #[schema(min_length = 1, max_length = 2000)]
    pub message: Option<String>,
}

/// One message.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    #[serde(rename = "_id")]
    pub id: String,
    pub conversation_id: String,
    pub sender_id: String,
    pub receiver_id: String,
    pub message: String,
    /// When it was sent.
    pub timestamp: DateTime<Utc>,
    /// Its place in the conversation: 1, 2, 3… in sending order.
    pub sequence: i64,
    pub is_read: bool,
    pub read_at: Option<DateTime<Utc>>,
}

impl From<message::Model> for Message {
    fn from(m: message::Model) -> Self {
        Self {
            id: m.id.to_string(),
            conversation_id: m.conversation_id.to_string(),
            sender_id: m.sender_id.to_string(),
            receiver_id: m.receiver_id.to_string(),
            message: m.text,
            timestamp: m.created_at,
            sequence: m.seq,
            is_read: m.read_at.is_some(),
            read_at: m.read_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Participant {
    #[serde(rename = "_id")]
    pub id: String,
    pub name: Option<String>,
    /// A picture URL; accounts have none yet, so null.
    pub avatar: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LastMessage {
    pub text: String,
    pub timestamp: DateTime<Utc>,
    pub is_read: bool,
}

/// The spec's Conversation, as the caller sees it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Conversation {
    #[serde(rename = "_id")]
    pub id: String,
    pub participant: Participant,
    pub last_message: Option<LastMessage>,
    /// Messages the caller received here and has not read.
    pub unread_count: u64,
}

impl Conversation {
    /// `v` as seen by `me`, one of its participants.
    pub fn new(v: ConversationView, me: Uuid) -> Self {
        Self {
            id: v.conversation.id.to_string(),
            participant: Participant {
                id: v.conversation.other(me).to_string(),
                name: v.other.and_then(|u| u.name),
                avatar: None,
            },
            last_message: v.last.map(|m| LastMessage {
                is_read: m.read_at.is_some(),
                text: m.text,
                timestamp: m.created_at,
            }),
            unread_count: v.unread,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnreadCount {
    pub unread_count: u64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MarkedRead {
    /// Messages that were unread and are read now.
    pub marked_read: usize,
}
