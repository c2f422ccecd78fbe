//! Shared by every service and knowing none of them: the modules below, and the
//! [`CoreContext`] each service is mounted with.

pub mod admin;
pub mod auth;
pub mod bus;
pub mod client;
pub mod clock;
pub mod cluster;
pub mod code_limits;
pub mod config;
pub mod cors;
pub mod db;
pub mod download;
pub mod dto;
pub mod email;
pub mod error;
pub mod handlers;
pub mod health;
pub mod http;
pub mod jobs;
pub mod json_body;
pub mod jwt;
pub mod lease;
pub mod lockout;
pub mod markup;
pub mod metrics;
pub mod net_error;
pub mod node;
pub mod otp;
pub mod outbound_url;
pub mod page;
pub mod password;
pub mod phone;
pub mod placement;
pub mod probes;
pub mod rate_limit;
pub mod rate_store;
pub mod refresh;
pub mod role;
pub mod routes;
pub mod secrets;
pub mod server;
pub mod service;
pub mod session;
pub mod signed_link;
pub mod start_failure;
pub mod telemetry;
pub mod tls;
pub mod totp;
pub mod traces;
pub mod versioning;
pub mod webhook_settings;
pub mod webhook_transport;

use std::sync::Arc;

/// What every service gets from the process: the shared settings, database, clock, keys and
/// limits (the providers come apart, from startup).
#[derive(Clone)]
pub struct CoreContext {
    pub settings: Arc<config::CoreSettings>,
    pub db: sea_orm::DatabaseConnection,
    pub clock: clock::SharedClock,
    pub jwt: jwt::JwtKeys,
    pub limiter: Arc<dyn rate_store::RateLimitStore>,
    /// This node's id and the Redis the cluster shares, if any.
    pub cluster: cluster::Cluster,
    /// This node's actor leases on `db`, when nodes share it (the cluster has Redis).
    pub leases: Option<lease::Leases>,
    /// The durable job queue; services register their handlers when mounted.
    pub jobs: jobs::Jobs,
    /// This process's hold on its node id.
    pub node: Arc<node::Node>,
    /// What the services report at scrape time (their running actors).
    pub metrics: metrics::Sources,
}

impl CoreContext {
    pub fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.clock.now()
    }
}
