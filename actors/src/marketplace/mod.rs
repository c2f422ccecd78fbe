//! The marketplace's `Conversation` actor: one per pair of users, found or started by
//! [`Conversations`]. It serializes the writes of its conversation in this process (the
//! sequence numbers, the read receipts), commits each through SeaORM, then announces it to
//! the users concerned through the [`UserFeed`] port. The database stays the truth: the
//! actor keeps no counts, and every write is a conditional statement in one transaction,
//! so a second process writing the same conversation stays exact.

mod conversation;
mod writes;

pub use conversation::{Conversations, Deps, KIND as CONVERSATION_KIND};
pub use writes::ConversationError;

use serde_json::Value;
use uuid::Uuid;

/// Delivery of an event to every live connection of one user (in this process today; a
/// cross-node fan-out goes behind the same call).
pub trait UserFeed: Send + Sync + 'static {
    fn to_user(&self, user: Uuid, event: &str, data: &Value);
}

/// Event names as sent on the wire.
pub mod events {
    pub const NEW_MESSAGE: &str = "new_message";
    pub const MESSAGE_READ: &str = "message_read";
}
