//! Administration: administrators' accounts (seeded at start-up, signed in by email and
//! password and a TOTP code when they have one, more made by `switchboard admin
//! create-ads-admin`), analytics, system health
//! and the website's dashboard metrics. Moderation of each feature's records lives in that
//! feature's folder (`posters/moderation.rs`, `ads/moderation.rs`, ...).

pub mod accounts;
pub mod dto;
pub mod insights;
pub mod routes;
pub mod totp;

use super::error::AdvertisingError;
use crate::core::error::ApiError;

/// 409 for a move the record's current state does not allow.
pub fn invalid_transition(message: impl Into<String>) -> ApiError {
    AdvertisingError::InvalidTransition(message.into()).into()
}
