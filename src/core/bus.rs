//! The cluster bus: what one node tells the others (a session ended, an account changed).
//! Over Redis pub/sub when the cluster has one; without it this process is the whole
//! deployment and there is nobody to tell.
//!
//! Delivery is at most once: a node whose subscription was down may have missed messages,
//! and is told so ([`Heard::Missed`]) when it is back, so a subscriber drops whatever a
//! missed message could have changed (the session cache empties itself).

use dashmap::DashMap;
use futures_util::StreamExt;
use redis::aio::ConnectionManager;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Weak};
use std::time::Duration;
use tokio::sync::broadcast;

/// Every bus channel starts with this; the topic follows.
const PREFIX: &str = "switchboard:bus:";
/// Messages a slow subscriber may fall behind by before it is told it missed some.
const BACKLOG: usize = 1024;
const FIRST_RETRY: Duration = Duration::from_millis(100);
const LAST_RETRY: Duration = Duration::from_secs(5);

/// What a subscriber hears on its topic from the other nodes.
#[derive(Debug, Clone)]
pub enum Heard {
    /// A message another node published.
    Message(Arc<serde_json::Value>),
    /// The subscription was down (or this subscriber fell behind): messages may be lost.
    Missed,
}

#[derive(Serialize, Deserialize)]
struct Envelope<F, T> {
    /// The publishing node's id: a node ignores its own messages.
    from: F,
    body: T,
}

/// Publish failed: Redis could not be reached in time.
#[derive(Debug)]
pub struct Unreachable(redis::RedisError);

impl std::fmt::Display for Unreachable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the cluster bus is unreachable: {}", self.0)
    }
}

impl std::error::Error for Unreachable {}

type Topics = DashMap<String, broadcast::Sender<Heard>>;

#[derive(Clone)]
pub struct Bus {
    node_id: Arc<str>,
    redis: Option<Shared>,
}

#[derive(Clone)]
struct Shared {
    client: redis::Client,
    publisher: ConnectionManager,
    topics: Arc<Topics>,
    /// Set once the listening task runs (it starts with the first subscriber).
    listening: Arc<std::sync::Once>,
}

impl Bus {
    /// The bus of a node without Redis: nothing to publish to, nothing to hear.
    pub fn local(node_id: Arc<str>) -> Self {
        Self {
            node_id,
            redis: None,
        }
    }

    /// The bus over `client` (subscribing) and `publisher` (a connection of the cluster's).
    pub(super) fn over(
        node_id: Arc<str>,
        client: redis::Client,
        publisher: ConnectionManager,
    ) -> Self {
        Self {
            node_id,
            redis: Some(Shared {
                client,
                publisher,
                topics: Arc::default(),
                listening: Arc::new(std::sync::Once::new()),
            }),
        }
    }

    /// Whether other nodes can hear this one.
    pub fn is_shared(&self) -> bool {
        self.redis.is_some()
    }

    /// Tells every other node `body` on `topic`. Returns once Redis has passed it to every
    /// node subscribed at that moment (PUBLISH answers after delivering), so a client that
    /// hears back from this node and then asks another finds the message already there.
    pub async fn publish<T: Serialize>(&self, topic: &str, body: &T) -> Result<(), Unreachable> {
        let Some(redis) = &self.redis else {
            return Ok(());
        };
        let envelope = Envelope {
            from: &*self.node_id,
            body,
        };
        // Serialising our own plain types cannot fail; an empty message would be dropped by
        // every receiver anyway.
        let payload = serde_json::to_vec(&envelope).unwrap_or_default();
        let mut conn = redis.publisher.clone();
        redis::cmd("PUBLISH")
            .arg(format!("{PREFIX}{topic}"))
            .arg(payload)
            .query_async::<i64>(&mut conn)
            .await
            .map(drop)
            .map_err(Unreachable)
    }

    /// What the other nodes publish on `topic` from now on. Must be called inside a Tokio
    /// runtime: the first subscriber starts the task that listens.
    pub fn subscribe(&self, topic: &str) -> broadcast::Receiver<Heard> {
        let Some(redis) = &self.redis else {
            // Never sends: the sender is dropped at once, so the receiver reads "closed".
            return broadcast::channel(1).1;
        };
        let rx = redis
            .topics
            .entry(topic.to_owned())
            .or_insert_with(|| broadcast::channel(BACKLOG).0)
            .subscribe();
        redis.listening.call_once(|| {
            tokio::spawn(listen(
                redis.client.clone(),
                Arc::downgrade(&redis.topics),
                self.node_id.clone(),
            ));
        });
        rx
    }
}

/// Listens to every bus channel until the bus is dropped, coming back after each outage
/// (and telling every topic it may have missed messages meanwhile).
async fn listen(client: redis::Client, topics: Weak<Topics>, node_id: Arc<str>) {
    let mut retry = FIRST_RETRY;
    let mut outage = false;
    loop {
        let subscribed = async {
            let mut pubsub = client.get_async_pubsub().await?;
            pubsub.psubscribe(format!("{PREFIX}*")).await?;
            Ok::<_, redis::RedisError>(pubsub)
        };
        match subscribed.await {
            Ok(pubsub) => {
                retry = FIRST_RETRY;
                if outage {
                    tracing::info!("cluster bus: subscribed again after an outage");
                    let Some(topics) = topics.upgrade() else {
                        return;
                    };
                    for t in topics.iter() {
                        let _ = t.value().send(Heard::Missed);
                    }
                }
                let mut messages = pubsub.into_on_message();
                while let Some(msg) = messages.next().await {
                    let Some(topics) = topics.upgrade() else {
                        return;
                    };
                    deliver(&topics, &node_id, &msg);
                }
                tracing::warn!("cluster bus: the subscription dropped; reconnecting");
            }
            Err(e) if !outage => {
                tracing::warn!(error = %e, "cluster bus: cannot subscribe; retrying");
            }
            Err(_) => {}
        }
        outage = true;
        if topics.strong_count() == 0 {
            return;
        }
        tokio::time::sleep(retry).await;
        retry = (retry * 2).min(LAST_RETRY);
    }
}

fn deliver(topics: &Topics, node_id: &str, msg: &redis::Msg) {
    let Some(topic) = msg.get_channel_name().strip_prefix(PREFIX) else {
        return;
    };
    let Some(sender) = topics.get(topic) else {
        return;
    };
    match serde_json::from_slice::<Envelope<String, serde_json::Value>>(msg.get_payload_bytes()) {
        Ok(envelope) if envelope.from == node_id => {}
        Ok(envelope) => {
            let _ = sender.send(Heard::Message(Arc::new(envelope.body)));
        }
        Err(e) => tracing::warn!(topic, error = %e, "cluster bus: unreadable message dropped"),
    }
}
