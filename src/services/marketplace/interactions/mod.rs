//! What anyone does with a listing: likes, views, comments and replies, shares, test drives;
//! and the counters those keep on the car's row.

pub mod counters;
pub mod domain;
pub mod dto;
pub mod routes;
pub mod service;
pub mod store;
