//! Countries and cities: fixed reference data compiled into the binary.

pub mod data;
