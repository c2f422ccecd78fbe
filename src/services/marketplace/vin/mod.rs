//! VIN lookups (`GET /vin/lookup/{vin}`): the offline decoder (`domain.rs`, with the maker
//! identifiers in `wmi.rs` and descriptor sections in `vds.rs`) and the configured online
//! provider over it (`provider.rs`).

pub mod domain;
pub mod dto;
pub mod provider;
pub mod routes;
mod vds;
mod wmi;
