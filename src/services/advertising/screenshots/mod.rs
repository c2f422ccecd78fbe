//! Screenshots: a poster's proof of posting, checked for duplicates and the referral code
//! in the background, and decided once (the payout reserved at submission moves then).

pub mod dto;
pub mod moderation;
pub mod routes;
pub mod store;
pub mod verify;
