//! Workspaces: who is calling (API key or bearer token), the token exchange, the account and
//! its ledger, and the operator's commands that create workspaces and grant credits.

pub mod admin;
pub mod caller;
pub mod dto;
pub mod routes;
pub mod store;
