//! Engine.IO v4 / Socket.IO v5 protocol tests, after the expectations of the
//! Socket.IO protocol test suite, spoken raw over HTTP long-polling and
//! WebSocket against the conformance echo server.

mod support;

mod engineio;
mod lifecycle;
mod limits;
mod pacing;
mod payload;
mod rooms;
mod socketio;
