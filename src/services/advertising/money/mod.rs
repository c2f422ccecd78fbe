//! Money: the double-entry ledger in integer cents, a poster's balance and transactions,
//! and withdrawals.

pub mod admin;
pub mod dto;
pub mod ledger;
pub mod routes;
pub mod store;
