//! Subscriptions: a poster takes up an ad and gets a copy of its video with their referral
//! code burnt in, made by background jobs and served behind signed links.

pub mod dto;
pub mod routes;
pub mod store;
pub mod video;
