//! Subscriptions: a poster takes up an ad and gets a copy of its video with their proof code
//! (referral code and a tag of the subscription) burnt in, made by background jobs and
//! served behind signed links, and its key frames for the screenshot verifier.

pub mod dto;
pub mod proof;
pub mod routes;
pub mod store;
pub mod video;
