//! Paying for messages: credits, the debit that accepts a send, refunds, and the
//! Idempotency-Key record written in the same transaction.

pub mod domain;
pub mod idempotency;
pub mod service;
