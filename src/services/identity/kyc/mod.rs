//! Identity verification: status, initiation, and the built-in provider's page.

pub mod dto;
pub mod routes;
pub mod service;
