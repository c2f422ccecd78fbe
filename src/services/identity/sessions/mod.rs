//! Sessions: each a refresh-token family, its access tokens, rotation, logout, the list of
//! signed-in devices, and the bearer of an access token.

pub mod caller;
pub mod dto;
pub mod routes;
pub mod store;
