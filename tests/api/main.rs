//! Black-box tests: each test starts the application on port 0 with its own database
//! (SQLite file, or a fresh PostgreSQL database when TEST_DATABASE_URL names a server) and a
//! manual clock, and talks to it over HTTP.
// Test code: a failed step should fail the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod advertising;
mod backup;
pub(crate) mod cluster;
mod core_http;
mod helpers;
mod identity;
mod internal_errors;
mod interview;
mod jobs;
mod marketplace;
mod messaging;
mod operations;
mod providers;
mod retention;
mod sessions;
mod sio;
mod telemetry;
mod tls;
