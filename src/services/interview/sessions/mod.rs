//! Interview sessions: creation, reads and every state change (through the session's actor),
//! over REST and over Socket.IO.

pub mod domain;
pub mod dto;
pub mod routes;
pub mod socket;
pub mod store;
