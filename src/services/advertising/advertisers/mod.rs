//! Advertisers: sign-up by email and password, the address verified by a mailed link,
//! sign-in, password resets, their profile and their money across their ads.

pub mod domain;
pub mod dto;
pub mod mail;
pub mod mail_queue;
pub mod routes;
pub mod store;
pub mod suspension;
pub mod tokens;
