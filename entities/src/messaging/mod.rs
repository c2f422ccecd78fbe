pub mod delivery_attempt;
pub mod idempotency_key;
pub mod ledger_entry;
pub mod message;
pub mod webhook;
pub mod webhook_delivery;
pub mod workspace;
