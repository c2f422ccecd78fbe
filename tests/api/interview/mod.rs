//! Interview service: REST, actor state machine and timers, Socket.IO events, webhooks,
//! PDF report, AI adapter and onboarding.

mod ai;
mod cluster;
mod lifecycle;
mod onboarding;
mod report;
mod sessions;
mod socket;
mod spec_fields;
pub(crate) mod support;
mod webhook;
