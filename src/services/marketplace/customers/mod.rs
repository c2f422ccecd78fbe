//! The customer's side: favorites, inquiries to dealers, the cars they liked and viewed.

pub mod dto;
pub mod routes;
pub mod store;
