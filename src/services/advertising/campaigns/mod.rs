//! Campaigns: an advertiser's ad. Created and edited (back to `pending` each time) with a
//! video uploaded or named by URL, which a `video-processing` job of `type: "ad"` checks and
//! transcodes; listed with their money, and read back as statistics (views counted once per
//! poster per day when posters open the ad).

pub mod dto;
pub mod input;
pub mod routes;
pub mod store;
pub mod video;
