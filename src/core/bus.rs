//! The cluster bus: what one node tells the others (a session ended, an account changed).
//! Over Redis pub/sub when the cluster has one; without it this process is the whole
//! deployment and there is nobody to tell.
//!
//! Delivery is at most once: a node whose subscription was down may have missed messages,
//! and is told so ([`Heard::Missed`]) when it is back, so a subscriber drops whatever a
//! missed message could have changed (the session cache empties itself).

use dashmap::DashMap;
use futures_util::future::BoxFuture;
use futures_util::StreamExt;
use redis::aio::ConnectionManager;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;
use tokio::sync::{broadcast, oneshot};

/// Every channel heard by all nodes starts with this; the topic follows.
const PREFIX: &str = "switchboard:bus:";
/// Every channel heard by one node starts with this: `rpc:<node>` and `reply:<node>`. Each
/// node subscribes to its own by name (not by the pattern), so a PUBLISH to one answers
/// whether that node is on the bus now: a node killed is off at once (its connection
/// closed), so nobody waits out a timeout for it.
const DIRECT: &str = "switchboard:to:";
/// Messages a slow subscriber may fall behind by before it is told it missed some.
const BACKLOG: usize = 1024;
/// How often a node waiting for another's answer checks that the other is still on the bus.
const PRESENCE_EVERY: Duration = Duration::from_millis(250);
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

/// What this node answers for one service when another node asks (see [`Bus::ask`]).
pub type Answerer =
    Arc<dyn Fn(serde_json::Value) -> BoxFuture<'static, serde_json::Value> + Send + Sync>;

/// A question to one node, and its answer.
#[derive(Serialize, Deserialize)]
struct Request {
    id: u64,
    reply_to: String,
    service: String,
    body: serde_json::Value,
}

#[derive(Serialize, Deserialize)]
struct Reply {
    id: u64,
    body: serde_json::Value,
}

/// Why another node gave no answer.
#[derive(Debug)]
pub enum AskError {
    /// Redis could not be reached.
    Unreachable(Unreachable),
    /// The node is not on the bus: it died, or lost Redis. It never heard the question.
    Gone,
    /// The node heard the question, then left the bus before answering: it may or may not
    /// have acted on it.
    Left,
    /// Nobody answered in time: the node is stuck, or does not serve that.
    NoAnswer,
}

impl std::fmt::Display for AskError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unreachable(e) => e.fmt(f),
            Self::Gone => f.write_str("the other node is not on the cluster bus"),
            Self::Left => f.write_str("the other node left the cluster bus before answering"),
            Self::NoAnswer => f.write_str("the other node did not answer in time"),
        }
    }
}

impl std::error::Error for AskError {}

/// The questions this node serves and the answers it waits for.
#[derive(Default)]
struct Rpc {
    answerers: DashMap<String, Answerer>,
    waiting: DashMap<u64, oneshot::Sender<serde_json::Value>>,
    next_id: AtomicU64,
    started: std::sync::OnceLock<()>,
}

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
    listening: Arc<std::sync::OnceLock<()>>,
    /// Whether that task's subscription is up now (read by the metrics scrape).
    subscribed: Arc<AtomicBool>,
    rpc: Arc<Rpc>,
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
                listening: Arc::default(),
                subscribed: Arc::default(),
                rpc: Arc::default(),
            }),
        }
    }

    /// Whether other nodes can hear this one.
    pub fn is_shared(&self) -> bool {
        self.redis.is_some()
    }

    /// Whether this node hears the others now: `None` without Redis, `Some(false)` before
    /// the first subscriber and while the subscription reconnects.
    pub fn subscribed(&self) -> Option<bool> {
        let redis = self.redis.as_ref()?;
        Some(redis.subscribed.load(Ordering::Relaxed))
    }

    /// Asks `node` what it answers for `service` to `body`; waits at most `timeout`.
    pub async fn ask(
        &self,
        node: &str,
        service: &str,
        body: serde_json::Value,
        timeout: Duration,
    ) -> Result<serde_json::Value, AskError> {
        let Some(redis) = &self.redis else {
            return Err(AskError::NoAnswer);
        };
        self.start_rpc(redis);
        let id = redis.rpc.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        redis.rpc.waiting.insert(id, tx);
        let request = Request {
            id,
            reply_to: self.node_id.to_string(),
            service: service.to_owned(),
            body,
        };
        let sent = self.send_to(node, "rpc", &request).await;
        let answer = match sent {
            Err(e) => Err(e),
            // A node that dies after it heard the question leaves the bus too: waiting
            // stops there instead of at the timeout.
            Ok(()) => tokio::select! {
                answer = tokio::time::timeout(timeout, rx) => match answer {
                    Ok(Ok(body)) => Ok(body),
                    _ => Err(AskError::NoAnswer),
                },
                () = self.left(node) => Err(AskError::Left),
            },
        };
        redis.rpc.waiting.remove(&id);
        answer
    }

    /// Returns once `node` is seen off the bus (checked every [`PRESENCE_EVERY`]); never if
    /// it stays, or while Redis cannot say.
    async fn left(&self, node: &str) {
        let Some(redis) = &self.redis else {
            return std::future::pending().await;
        };
        let channel = format!("{DIRECT}{}", direct("rpc", node));
        loop {
            tokio::time::sleep(PRESENCE_EVERY).await;
            let mut conn = redis.publisher.clone();
            let subscribers = redis::cmd("PUBSUB")
                .arg("NUMSUB")
                .arg(&channel)
                .query_async::<(String, i64)>(&mut conn)
                .await;
            if let Ok((_, 0)) = subscribers {
                return;
            }
        }
    }

    /// Hands `body` to what `node` serves for `service`, without waiting for an answer (lost
    /// if that node dies before handling it).
    pub async fn tell(
        &self,
        node: &str,
        service: &str,
        body: serde_json::Value,
    ) -> Result<(), AskError> {
        let Some(redis) = &self.redis else {
            return Ok(());
        };
        self.start_rpc(redis);
        let request = Request {
            id: 0,
            reply_to: String::new(),
            service: service.to_owned(),
            body,
        };
        self.send_to(node, "rpc", &request).await
    }

    /// Answers what other nodes ask this one for `service` (see [`Bus::ask`]).
    pub fn serve(&self, service: &str, answer: Answerer) {
        if let Some(redis) = &self.redis {
            redis.rpc.answerers.insert(service.to_owned(), answer);
            self.start_rpc(redis);
        }
    }

    /// Starts answering questions and taking answers, once.
    fn start_rpc(&self, redis: &Shared) {
        redis.rpc.started.get_or_init(|| {
            let questions = self.subscribe(&direct("rpc", &self.node_id));
            let answers = self.subscribe(&direct("reply", &self.node_id));
            tokio::spawn(answer_questions(
                self.clone(),
                Arc::downgrade(&redis.rpc),
                questions,
            ));
            tokio::spawn(take_answers(Arc::downgrade(&redis.rpc), answers));
        });
    }

    /// Tells every other node `body` on `topic`. Returns once Redis has passed it to every
    /// node subscribed at that moment (PUBLISH answers after delivering), so a client that
    /// hears back from this node and then asks another finds the message already there.
    pub async fn publish<T: Serialize>(&self, topic: &str, body: &T) -> Result<(), Unreachable> {
        self.publish_on(&format!("{PREFIX}{topic}"), body)
            .await
            .map(drop)
    }

    /// Sends `body` on `node`'s own `kind` channel; Gone when that node is not subscribed.
    async fn send_to<T: Serialize>(
        &self,
        node: &str,
        kind: &str,
        body: &T,
    ) -> Result<(), AskError> {
        let channel = format!("{DIRECT}{}", direct(kind, node));
        match self.publish_on(&channel, body).await {
            Ok(0) => Err(AskError::Gone),
            Ok(_) => Ok(()),
            Err(e) => Err(AskError::Unreachable(e)),
        }
    }

    /// Publishes on `channel`; answers how many subscribers Redis handed it to.
    async fn publish_on<T: Serialize>(&self, channel: &str, body: &T) -> Result<i64, Unreachable> {
        let Some(redis) = &self.redis else {
            return Ok(0);
        };
        let envelope = Envelope {
            from: &*self.node_id,
            body,
        };
        // Serialising our own plain types cannot fail; an empty message would be dropped by
        // every receiver anyway.
        let payload = serde_json::to_vec(&envelope).unwrap_or_default();
        let mut conn = redis.publisher.clone();
        let sent = redis::cmd("PUBLISH")
            .arg(channel)
            .arg(payload)
            .query_async::<i64>(&mut conn)
            .await
            .map_err(Unreachable);
        match sent {
            Ok(_) => crate::core::metrics::bus_message(true),
            Err(_) => crate::core::metrics::bus_publish_failed(),
        }
        sent
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
        redis.listening.get_or_init(|| {
            tokio::spawn(listen(
                redis.client.clone(),
                Arc::downgrade(&redis.topics),
                self.node_id.clone(),
                redis.subscribed.clone(),
            ));
        });
        rx
    }
}

/// The topic of `node`'s own `kind` channel.
fn direct(kind: &str, node: &str) -> String {
    format!("{kind}:{node}")
}

async fn answer_questions(bus: Bus, rpc: Weak<Rpc>, mut heard: broadcast::Receiver<Heard>) {
    while let Some(body) = next_message(&mut heard).await {
        let Some(rpc) = rpc.upgrade() else {
            return;
        };
        let Ok(request) = Request::deserialize(&*body) else {
            continue;
        };
        let Some(answerer) = rpc.answerers.get(&request.service).map(|a| a.clone()) else {
            continue;
        };
        let bus = bus.clone();
        tokio::spawn(async move {
            let body = answerer(request.body).await;
            if request.reply_to.is_empty() {
                return; // told, not asked
            }
            let reply = Reply {
                id: request.id,
                body,
            };
            // The asker times out if this is lost.
            let _ = bus.send_to(&request.reply_to, "reply", &reply).await;
        });
    }
}

async fn take_answers(rpc: Weak<Rpc>, mut heard: broadcast::Receiver<Heard>) {
    while let Some(body) = next_message(&mut heard).await {
        let Some(rpc) = rpc.upgrade() else {
            return;
        };
        if let Ok(reply) = Reply::deserialize(&*body) {
            if let Some((_, waiting)) = rpc.waiting.remove(&reply.id) {
                let _ = waiting.send(reply.body);
            }
        }
    }
}

/// The next message heard; None once the bus is gone. Missed ones are missed: the asker
/// times out.
async fn next_message(heard: &mut broadcast::Receiver<Heard>) -> Option<Arc<serde_json::Value>> {
    loop {
        match heard.recv().await {
            Ok(Heard::Message(body)) => return Some(body),
            Ok(Heard::Missed) | Err(broadcast::error::RecvError::Lagged(_)) => {}
            Err(broadcast::error::RecvError::Closed) => return None,
        }
    }
}

/// Listens to every bus channel until the bus is dropped, coming back after each outage
/// (and telling every topic it may have missed messages meanwhile).
async fn listen(
    client: redis::Client,
    topics: Weak<Topics>,
    node_id: Arc<str>,
    up: Arc<AtomicBool>,
) {
    let mut retry = FIRST_RETRY;
    let mut outage = false;
    loop {
        let subscribed = async {
            let mut pubsub = client.get_async_pubsub().await?;
            pubsub.psubscribe(format!("{PREFIX}*")).await?;
            for kind in ["rpc", "reply"] {
                pubsub
                    .subscribe(format!("{DIRECT}{}", direct(kind, &node_id)))
                    .await?;
            }
            Ok::<_, redis::RedisError>(pubsub)
        };
        match subscribed.await {
            Ok(pubsub) => {
                retry = FIRST_RETRY;
                up.store(true, Ordering::Relaxed);
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
        up.store(false, Ordering::Relaxed);
        if topics.strong_count() == 0 {
            return;
        }
        tokio::time::sleep(retry).await;
        retry = (retry * 2).min(LAST_RETRY);
    }
}

fn deliver(topics: &Topics, node_id: &str, msg: &redis::Msg) {
    let channel = msg.get_channel_name();
    let Some(topic) = channel
        .strip_prefix(PREFIX)
        .or_else(|| channel.strip_prefix(DIRECT))
    else {
        return;
    };
    let Some(sender) = topics.get(topic) else {
        return;
    };
    match serde_json::from_slice::<Envelope<String, serde_json::Value>>(msg.get_payload_bytes()) {
        Ok(envelope) if envelope.from == node_id => {}
        Ok(envelope) => {
            crate::core::metrics::bus_message(false);
            let _ = sender.send(Heard::Message(Arc::new(envelope.body)));
        }
        Err(e) => tracing::warn!(topic, error = %e, "cluster bus: unreadable message dropped"),
    }
}
