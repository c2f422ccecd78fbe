//! Figures over a car's interactions: trending cars, many cars' counters at once, and one
//! car's analytics for its owner.

pub mod dto;
pub mod routes;
pub mod store;
