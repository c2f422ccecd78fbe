//! Engine.IO v4 / Socket.IO v5 protocol tests, after the expectations of the
//! Socket.IO protocol test suite, spoken raw over HTTP long-polling and
//! WebSocket against the conformance echo server.
// Test code: a failed step should fail the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

mod cluster;
mod engineio;
mod lifecycle;
mod limits;
mod node_interop;
mod pacing;
mod payload;
mod rooms;
mod socketio;
