//! Ads as posters see them: listed while approved and funded beyond one payout, trending,
//! one ad and its stats; the money columns every reservation moves; and the operator's
//! command that makes an ad until advertisers come.

pub mod create;
pub mod dto;
pub mod moderation;
pub mod routes;
pub mod stats;
pub mod store;
mod trending;
