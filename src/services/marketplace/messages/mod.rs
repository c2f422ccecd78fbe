//! Direct messages between two users: send, conversations, a conversation's messages, read
//! receipts and unread counts. Their live events go out through the service's socket.

pub mod dto;
pub mod routes;
pub mod store;
