//! This node's place in a cluster (`[cluster]`): its id, and the Redis every node shares when
//! one is configured. Without Redis this process is the whole deployment and keeps its
//! counters in memory.

use super::bus::Bus;
use super::config::ClusterSettings;
use super::rate_store::{MemoryStore, RateLimitStore, RedisStore};
use super::tls::ExtraRoots;
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
    /// What this node tells the others, and hears from them.
    pub bus: Bus,
}

impl Cluster {
    /// The cluster `settings` describe, with this process as node `node_id` (`core::node`).
    /// Redis is connected lazily (and again after an outage: a node counts locally
    /// meanwhile); start-up checks it once ([`Self::reachable`]).
    pub fn new(
        settings: &ClusterSettings,
        node_id: Arc<str>,
        roots: &ExtraRoots,
    ) -> Result<Self, redis::RedisError> {
        let Some(url) = settings.redis() else {
            return Ok(Self {
                bus: Bus::local(node_id.clone()),
                node_id,
                redis: None,
            });
        };
        let config = ConnectionManagerConfig::new()
            .set_response_timeout(Some(RESPONSE_TIMEOUT))
            .set_connection_timeout(Some(CONNECT_TIMEOUT))
            .set_number_of_retries(2);
        let client = roots.redis_client(url)?;
        let redis = ConnectionManager::new_lazy_with_config(client.clone(), config)?;
        Ok(Self {
            bus: Bus::over(node_id.clone(), client, redis.clone()),
            node_id,
            redis: Some(redis),
        })
    }

    /// Where rate limits count: Redis when the cluster has one, this process otherwise.
    pub fn rate_store(&self) -> Arc<dyn RateLimitStore> {
        match &self.redis {
            Some(redis) => Arc::new(RedisStore::new(redis.clone())),
            None => Arc::new(MemoryStore::default()),
        }
    }

    pub fn redis_configured(&self) -> bool {
        self.redis.is_some()
    }

    /// Ok when Redis answers a PING now, or the cluster has none; else why not.
    pub async fn reachable(&self) -> Result<(), redis::RedisError> {
        let Some(mut conn) = self.redis.clone() else {
            return Ok(());
        };
        redis::cmd("PING").query_async::<String>(&mut conn).await?;
        Ok(())
    }

    /// Whether Redis answers a PING now; None when the cluster has no Redis.
    pub async fn ping(&self) -> Option<bool> {
        let mut conn = self.redis.clone()?;
        let pong = redis::cmd("PING").query_async::<String>(&mut conn).await;
        Some(pong.is_ok())
    }
}
