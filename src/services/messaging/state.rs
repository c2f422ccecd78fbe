//! Workflows of the messaging service over the database and the providers.

pub mod admin;
pub mod billing;
pub mod carrier;
pub mod dispatch;
pub mod events;
pub mod handover;
pub mod idempotency;
pub mod reports;
pub mod retention;
pub mod status;
pub mod transport;
pub mod webhooks;
