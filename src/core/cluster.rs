//! This node's place in a cluster (`[cluster]`): its id, and the Redis every node shares when
//! one is configured. Without Redis this process is the whole deployment and keeps its
//! counters in memory.

use super::config::ClusterSettings;
use super::rate_store::{MemoryStore, RateLimitStore, RedisStore};
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use std::sync::Arc;
use std::time::Duration;

/// How long a Redis command may take before the caller treats Redis as unreachable: the
/// rate limiter asks on every request, so an outage must cost little.
const RESPONSE_TIMEOUT: Duration = Duration::from_millis(250);
const CONNECT_TIMEOUT: Duration = Duration::from_millis(500);

#[derive(Clone)]
pub struct Cluster {
    pub node_id: Arc<str>,
    redis: Option<ConnectionManager>,
}

impl Cluster {
    /// The cluster `settings` describe. Redis is connected lazily (and again after an
    /// outage), so a node starts while Redis is down and counts locally meanwhile.
    pub fn new(settings: &ClusterSettings) -> Result<Self, redis::RedisError> {
        let node_id = match settings.node_id.trim() {
            "" => format!("node-{}", super::secrets::random_hex(4)),
            id => id.to_owned(),
        };
        let redis = match settings.redis() {
            None => None,
            Some(url) => {
                let config = ConnectionManagerConfig::new()
                    .set_response_timeout(Some(RESPONSE_TIMEOUT))
                    .set_connection_timeout(Some(CONNECT_TIMEOUT))
                    .set_number_of_retries(2);
                let client = redis::Client::open(url)?;
                Some(ConnectionManager::new_lazy_with_config(client, config)?)
            }
        };
        Ok(Self {
            node_id: node_id.into(),
            redis,
        })
    }

    /// Where rate limits count: Redis when the cluster has one, this process otherwise.
    pub fn rate_store(&self) -> Arc<dyn RateLimitStore> {
        match &self.redis {
            Some(redis) => Arc::new(RedisStore::new(redis.clone())),
            None => Arc::new(MemoryStore::default()),
        }
    }
}
