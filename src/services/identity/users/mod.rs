//! Accounts as people see them: own and public profiles, handles, deletion.

pub mod domain;
pub mod dto;
pub mod routes;
pub mod service;
pub mod store;
