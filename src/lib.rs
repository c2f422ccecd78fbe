//! Switchboard: one server running the marketplace, identity, interview, messaging and
//! advertising services from their specifications.

pub mod backup;
pub mod core;
pub mod providers;
pub mod realtime;
pub mod services;
pub mod settings;
pub mod startup;

pub use startup::{Application, Overrides};
