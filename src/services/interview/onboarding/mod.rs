//! The onboarding chat that gathers a service worker's profile.

pub mod domain;
pub mod dto;
pub mod routes;
pub mod store;
