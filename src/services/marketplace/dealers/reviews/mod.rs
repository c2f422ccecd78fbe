//! Reviews of a dealer: anyone reads them; a signed-in customer writes one per dealer.

pub mod dto;
pub mod routes;
pub mod store;
