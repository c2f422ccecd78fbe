//! The carrier's signed callbacks: delivery statuses and inbound SMS.

pub mod routes;
pub mod service;
