//! Shared by every service and knowing none of them.

pub mod client;
pub mod clock;
pub mod config;
pub mod db;
pub mod http;
pub mod jobs;
pub mod json_body;
pub mod jwt;
pub mod outbound_url;
pub mod password;
pub mod phone;
pub mod rate_limit;
pub mod secrets;
pub mod telemetry;
pub mod webhook_transport;

use crate::providers::outbox::Outbox;
use crate::providers::sms::SmsSender;
use std::sync::Arc;

/// What every service gets from the process: settings, database, clock, keys, limits and
/// the outward-facing providers.
#[derive(Clone)]
pub struct CoreContext {
    pub settings: Arc<config::Settings>,
    pub db: sea_orm::DatabaseConnection,
    pub clock: clock::SharedClock,
    pub jwt: jwt::JwtKeys,
    pub limiter: Arc<dyn rate_limit::RateLimitStore>,
    pub outbox: Arc<Outbox>,
    pub sms: Arc<dyn SmsSender>,
    pub http: reqwest::Client,
    /// The durable job queue; services register their handlers when mounted.
    pub jobs: jobs::Jobs,
}

impl CoreContext {
    pub fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.clock.now()
    }
}
