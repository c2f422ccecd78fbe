//! Dealers: applications and their approval (here), the public profiles and the dealer's
//! own profile and hours (`profiles/`), reviews (`reviews/`), and a dealer's listings,
//! statistics and CSV/JSON export (`listings/`).

pub mod dto;
pub mod listings;
pub mod profiles;
pub mod reviews;
pub mod routes;
pub mod store;
