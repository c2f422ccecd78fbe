//! Administration: administrators' accounts (seeded at start-up, signed in by email and
//! password, more made by `switchboard admin create-ads-admin`), analytics, system health
//! and the website's dashboard metrics. Moderation of each feature's records lives in that
//! feature's folder (`posters/moderation.rs`, `ads/moderation.rs`, ...).

pub mod accounts;
pub mod dto;
pub mod insights;
pub mod routes;

use crate::core::error::{ApiError, Kind};

/// 404 for a record an administrator named, with its code (`user_not_found`, ...).
pub fn not_found(record: &str, code: &'static str) -> ApiError {
    ApiError::not_found(format!("{record} not found")).code(code)
}

/// 409 for a move the record's current state does not allow.
pub fn invalid_transition(message: impl Into<String>) -> ApiError {
    ApiError::new(Kind::Conflict, message.into()).code("invalid_transition")
}
