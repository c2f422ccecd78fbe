//! Screenshots: a poster's proof of posting, checked in the background for the
//! subscription's video and proof code and for duplicates, and decided once (the payout
//! reserved at submission moves then).

pub mod dto;
pub mod jobs;
pub mod limit;
pub mod moderation;
pub mod routes;
pub mod store;
pub mod verify;
