//! Posters: sign-in by phone and code, their profile, referral code and device token.

pub mod domain;
pub mod dto;
pub mod moderation;
pub mod routes;
mod signin;
pub mod stats;
pub mod store;
