//! Customers' webhooks: management routes, the events written for them, and the actors'
//! transport and retry schedule.

pub mod domain;
pub mod dto;
pub mod events;
pub mod routes;
pub mod store;
pub mod transport;
