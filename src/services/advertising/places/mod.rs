//! Where posters are: countries (ISO 3166-1) and their largest cities, from committed data
//! files naming their sources, and the ad categories.

pub mod data;
pub mod dto;
pub mod routes;
pub mod store;
