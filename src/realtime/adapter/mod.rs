//! Rooms across nodes over Redis pub/sub, in the wire format of socket.io's own classic
//! `@socket.io/redis-adapter`, so Switchboard nodes and Node socket.io servers that share a
//! Redis and a key broadcast to each other's rooms.
//!
//! The hub hands every broadcast made here to [`Adapter::publish`] (a bounded queue, no await);
//! a publisher task encodes and sends them on its own connection. One subscriber task per server
//! listens to the broadcast pattern and the request channel of each namespace, hands what other
//! nodes publish to the hub, and answers their requests (fetchSockets, allRooms, broadcasts with
//! acks, remote join/leave/disconnect). When Redis drops, both reconnect with backoff while
//! local rooms keep working; an outage is logged once.

mod wire;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use actix::Addr;
use futures_util::StreamExt;
use redis::aio::MultiplexedConnection;
use rmpv::Value as Mp;
use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::hub::{self, Hub};
use super::socketio::Frame;
pub use wire::Target;
use wire::{field, Channels};

pub use super::config::RedisAdapterConfig;

/// Broadcasts waiting for the publisher; past this (Redis slower than the emits) they are
/// dropped for the other nodes, never for this node's own sockets.
const QUEUE: usize = 16_384;
/// Publishes sent to Redis in one pipeline.
const BATCH: usize = 256;
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(2);
/// How often a subscription checks that Redis still answers.
const PING_EVERY: Duration = Duration::from_secs(15);
const BACKOFF_MIN: Duration = Duration::from_millis(100);
const BACKOFF_MAX: Duration = Duration::from_secs(5);
/// How long the acks of a broadcast are forwarded when its sender set no timeout.
const ACK_WAIT: Duration = Duration::from_secs(10);
const ACK_WAIT_MAX: Duration = Duration::from_secs(120);

enum Outgoing {
    Broadcast {
        nsp: Arc<str>,
        target: Target,
        frame: Frame,
    },
    Raw {
        channel: String,
        payload: Vec<u8>,
    },
}

/// One server's side of the adapter, shared by its hub, connections and tasks.
pub(crate) struct Adapter {
    uid: String,
    channels: HashMap<String, Channels>,
    out: mpsc::Sender<Outgoing>,
    next_ack: AtomicU64,
    acks: Mutex<HashMap<u64, PendingAck>>,
    /// The queue was full (warned once until it drains).
    overflowing: AtomicBool,
}

/// A broadcast with ack another node asked for: its clients' acks go back to the requester.
struct PendingAck {
    request_id: String,
    channel: String,
    acked: HashSet<Arc<str>>,
    until: Instant,
}

/// Starts the tasks once the hub that delivers exists.
pub(crate) struct Starter {
    adapter: Arc<Adapter>,
    config: RedisAdapterConfig,
    rx: mpsc::Receiver<Outgoing>,
}

impl Adapter {
    pub(crate) fn new<'a>(
        config: RedisAdapterConfig,
        namespaces: impl IntoIterator<Item = &'a String>,
    ) -> (Arc<Adapter>, Starter) {
        let (out, rx) = mpsc::channel(QUEUE);
        // Unique in the fleet and free of glob characters (it ends up in channel names).
        let uid = {
            use base64::Engine as _;
            let bytes: [u8; 9] = rand::random();
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
        };
        let channels = namespaces
            .into_iter()
            .map(|nsp| (nsp.clone(), Channels::new(&config.key, nsp)))
            .collect();
        let adapter = Arc::new(Adapter {
            uid,
            channels,
            out,
            next_ack: AtomicU64::new(1),
            acks: Mutex::default(),
            overflowing: AtomicBool::new(false),
        });
        let starter = Starter {
            adapter: adapter.clone(),
            config,
            rx,
        };
        (adapter, starter)
    }

    fn queue(&self, msg: Outgoing) {
        if let Err(mpsc::error::TrySendError::Full(_)) = self.out.try_send(msg) {
            if !self.overflowing.swap(true, Ordering::Relaxed) {
                tracing::warn!(
                    capacity = QUEUE,
                    "redis adapter: broadcasts come faster than Redis takes them; \
                     the other nodes miss some until the queue drains"
                );
            }
        }
    }

    fn respond(&self, channel: String, payload: Vec<u8>) {
        self.queue(Outgoing::Raw { channel, payload });
    }

    /// A client acknowledged packet `id`: when that was a broadcast another node asked
    /// acks for, its first argument goes back to that node.
    pub(crate) fn client_ack(&self, sid: &Arc<str>, id: u64, arg: Mp) {
        let mut acks = self.acks.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(pending) = acks.get_mut(&id) else {
            return;
        };
        if pending.until < Instant::now() {
            acks.remove(&id);
            return;
        }
        if !pending.acked.insert(sid.clone()) {
            return; // one ack per client
        }
        let message = Mp::Map(vec![
            (Mp::from("type"), Mp::from(9)),
            (Mp::from("requestId"), Mp::from(pending.request_id.as_str())),
            (Mp::from("packet"), arg),
        ]);
        let channel = pending.channel.clone();
        drop(acks);
        if let Some(payload) = wire::to_vec(&message) {
            self.respond(channel, payload);
        }
    }

    /// Allocates the ack id for a broadcast with ack, forgetting expired ones.
    fn expect_acks(&self, request_id: String, channel: String, wait: Duration) -> u64 {
        let id = self.next_ack.fetch_add(1, Ordering::Relaxed);
        let now = Instant::now();
        let mut acks = self.acks.lock().unwrap_or_else(PoisonError::into_inner);
        acks.retain(|_, p| p.until > now);
        acks.insert(
            id,
            PendingAck {
                request_id,
                channel,
                acked: HashSet::new(),
                until: now + wait,
            },
        );
        id
    }
}

impl Starter {
    /// Spawns the publisher and the subscriber; call inside the actix System.
    pub(crate) fn start(self, hub: Addr<Hub>) {
        let Starter {
            adapter,
            config,
            rx,
        } = self;
        let client = match config.roots.redis_client(&config.url) {
            Ok(c) => c,
            Err(e) => {
                tracing::error!(error = %e, "redis adapter: bad redis_url; rooms stay on this node");
                return;
            }
        };
        actix::spawn(publisher(adapter.clone(), client.clone(), rx));
        actix::spawn(subscriber(adapter, client, hub));
    }
}

/// Logs an outage once, and its end.
#[derive(Default)]
struct Outage(bool);

impl Outage {
    fn down(&mut self, what: &str, error: &dyn std::fmt::Display) {
        if !std::mem::replace(&mut self.0, true) {
            tracing::warn!(%error, "redis adapter: {what} lost; rooms reach this node only until it is back");
        }
    }
    fn up(&mut self, what: &str) {
        if std::mem::replace(&mut self.0, false) {
            tracing::info!("redis adapter: {what} back");
        }
    }
}

async fn connect(client: &redis::Client) -> redis::RedisResult<MultiplexedConnection> {
    let config = redis::AsyncConnectionConfig::new()
        .set_connection_timeout(Some(CONNECT_TIMEOUT))
        .set_response_timeout(Some(RESPONSE_TIMEOUT));
    client
        .get_multiplexed_async_connection_with_config(&config)
        .await
}

impl super::rooms::Fleet for Adapter {
    fn publish(&self, nsp: Arc<str>, target: Target, frame: Frame) {
        self.queue(Outgoing::Broadcast { nsp, target, frame });
    }
}

/// Encodes and sends what the hub and the request handlers queue, in batches; while Redis is
/// down, what is queued meanwhile is dropped (other nodes miss it, as they would a lost
/// pub/sub message) and the connection is retried with backoff.
async fn publisher(adapter: Arc<Adapter>, client: redis::Client, mut rx: mpsc::Receiver<Outgoing>) {
    let mut conn: Option<MultiplexedConnection> = None;
    let mut outage = Outage::default();
    let mut backoff = BACKOFF_MIN;
    let mut retry_at = Instant::now();
    let mut batch = Vec::with_capacity(BATCH);
    while rx.recv_many(&mut batch, BATCH).await > 0 {
        if rx.is_empty() {
            adapter.overflowing.store(false, Ordering::Relaxed);
        }
        if conn.is_none() && Instant::now() >= retry_at {
            match connect(&client).await {
                Ok(c) => {
                    conn = Some(c);
                    backoff = BACKOFF_MIN;
                    outage.up("publish connection");
                }
                Err(e) => {
                    outage.down("publish connection", &e);
                    retry_at = Instant::now() + backoff;
                    backoff = (backoff * 2).min(BACKOFF_MAX);
                }
            }
        }
        let Some(c) = conn.as_mut() else {
            batch.clear();
            continue;
        };
        let mut pipe = redis::pipe();
        for msg in batch.drain(..) {
            let (channel, payload) = match msg {
                Outgoing::Raw { channel, payload } => (channel, payload),
                Outgoing::Broadcast { nsp, target, frame } => {
                    let Some(channels) = adapter.channels.get(&*nsp) else {
                        continue;
                    };
                    let Some(payload) = wire::encode_broadcast(&adapter.uid, &nsp, &target, &frame)
                    else {
                        continue;
                    };
                    (channels.broadcast(&target.rooms), payload)
                }
            };
            pipe.cmd("PUBLISH").arg(channel).arg(payload).ignore();
        }
        if pipe.is_empty() {
            continue;
        }
        if let Err(e) = pipe.query_async::<()>(c).await {
            outage.down("publish connection", &e);
            conn = None;
            retry_at = Instant::now() + backoff;
        }
    }
}

/// Listens on one connection (each subscribed connection counts as one server for Node's
/// `serverCount`), reconnecting with backoff for as long as the hub lives.
async fn subscriber(adapter: Arc<Adapter>, client: redis::Client, hub: Addr<Hub>) {
    let mut outage = Outage::default();
    let mut backoff = BACKOFF_MIN;
    while hub.connected() {
        match subscribe(&adapter, &client).await {
            Ok(pubsub) => {
                outage.up("subscription");
                backoff = BACKOFF_MIN;
                let error = listen(&adapter, &hub, pubsub).await;
                outage.down("subscription", &error);
            }
            Err(e) => outage.down("subscription", &e),
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(BACKOFF_MAX);
    }
}

/// Hands messages on until the connection ends or stops answering pings (a Redis that
/// vanished without closing the socket would otherwise leave us deaf); says why it stopped.
async fn listen(adapter: &Arc<Adapter>, hub: &Addr<Hub>, pubsub: redis::aio::PubSub) -> String {
    let (mut sink, mut messages) = pubsub.split();
    let mut ping = tokio::time::interval(PING_EVERY);
    ping.tick().await;
    loop {
        tokio::select! {
            msg = messages.next() => match msg {
                Some(msg) => on_message(adapter, hub, msg.get_channel_name(), msg.get_payload_bytes()),
                None => return "connection closed".to_owned(),
            },
            _ = ping.tick() => {
                match tokio::time::timeout(RESPONSE_TIMEOUT, sink.ping::<redis::Value>()).await {
                    Ok(Ok(_)) => {}
                    Ok(Err(e)) => return e.to_string(),
                    Err(_) => return "no answer to PING".to_owned(),
                }
            }
        }
    }
}

async fn subscribe(
    adapter: &Adapter,
    client: &redis::Client,
) -> redis::RedisResult<redis::aio::PubSub> {
    let mut pubsub = tokio::time::timeout(CONNECT_TIMEOUT, client.get_async_pubsub())
        .await
        .map_err(|_| {
            redis::RedisError::from(std::io::Error::from(std::io::ErrorKind::TimedOut))
        })??;
    for channels in adapter.channels.values() {
        pubsub.psubscribe(channels.pattern()).await?;
        pubsub.subscribe(&channels.request).await?;
    }
    Ok(pubsub)
}

fn on_message(adapter: &Arc<Adapter>, hub: &Addr<Hub>, channel: &str, payload: &[u8]) {
    for (nsp, channels) in &adapter.channels {
        if channel == channels.request {
            if let Some(request) = wire::decode_request(payload) {
                on_request(adapter, hub, nsp, request);
            }
            return;
        }
        if channel.starts_with(&channels.base) {
            // `opts` decides who receives; the channel only pre-filters.
            if let Some(m) = wire::decode_broadcast(payload, &adapter.uid) {
                if m.nsp == *nsp {
                    hub.do_send(hub::Broadcast {
                        nsp: Arc::from(m.nsp),
                        target: m.target,
                        frame: m.frame,
                        publish: false,
                    });
                }
            }
            return;
        }
    }
}

/// Request types of the classic adapter (`RequestType` in its index.js).
mod kind {
    pub const SOCKETS: u64 = 0;
    pub const ALL_ROOMS: u64 = 1;
    pub const REMOTE_JOIN: u64 = 2;
    pub const REMOTE_LEAVE: u64 = 3;
    pub const REMOTE_DISCONNECT: u64 = 4;
    pub const REMOTE_FETCH: u64 = 5;
    pub const BROADCAST: u64 = 7;
    pub const BROADCAST_CLIENT_COUNT: u64 = 8;
}

fn on_request(adapter: &Arc<Adapter>, hub: &Addr<Hub>, nsp: &str, req: Mp) {
    let uid = field(&req, "uid").and_then(Mp::as_str);
    if uid == Some(adapter.uid.as_str()) {
        return;
    }
    let Some(kind) = field(&req, "type").and_then(Mp::as_u64) else {
        return;
    };
    let nsp: Arc<str> = Arc::from(nsp);
    let opts_target = || field(&req, "opts").and_then(wire::target_of);
    let rooms = || -> Vec<String> {
        field(&req, "rooms")
            .and_then(Mp::as_array)
            .map(|r| r.iter().filter_map(wire::room_name).collect())
            .unwrap_or_default()
    };
    match kind {
        kind::REMOTE_JOIN | kind::REMOTE_LEAVE | kind::REMOTE_DISCONNECT => {
            // Without `opts` this is the legacy per-sid form 8.x no longer sends.
            let Some(target) = opts_target() else {
                return;
            };
            let action = match kind {
                kind::REMOTE_JOIN => hub::Action::Join(rooms()),
                kind::REMOTE_LEAVE => hub::Action::Leave(rooms()),
                _ => hub::Action::Disconnect {
                    close: field(&req, "close").and_then(Mp::as_bool).unwrap_or(false),
                },
            };
            hub.do_send(hub::Apply {
                nsp,
                target,
                action,
            });
        }
        kind::SOCKETS | kind::ALL_ROOMS | kind::REMOTE_FETCH | kind::BROADCAST => {
            let Some(request_id) = field(&req, "requestId").and_then(wire::room_name) else {
                return;
            };
            let Some(channels) = adapter.channels.get(&*nsp) else {
                return;
            };
            // Answer on the requester's own response channel: only it listens for it.
            let channel = match uid {
                Some(uid) => format!("{}{uid}#", channels.response),
                None => channels.response.clone(),
            };
            let adapter = adapter.clone();
            let hub = hub.clone();
            let target = if kind == kind::SOCKETS {
                Some(Target {
                    rooms: rooms(),
                    except: Vec::new(),
                })
            } else {
                opts_target()
            };
            let packet = field(&req, "packet")
                .and_then(|p| field(p, "data"))
                .cloned();
            let timeout = field(&req, "opts")
                .and_then(|o| field(o, "flags"))
                .and_then(|f| field(f, "timeout"))
                .and_then(Mp::as_u64);
            actix::spawn(async move {
                let answer = match kind {
                    kind::ALL_ROOMS => {
                        let rooms = hub.send(hub::AllRooms { nsp }).await.unwrap_or_default();
                        Some(json!({ "requestId": request_id, "rooms": rooms }))
                    }
                    kind::BROADCAST => {
                        broadcast_with_ack(
                            &adapter, &hub, nsp, target, packet, timeout, request_id, &channel,
                        )
                        .await
                    }
                    _ => {
                        let Some(target) = target else { return };
                        let sockets = hub
                            .send(hub::Select { nsp, target })
                            .await
                            .unwrap_or_default();
                        Some(sockets_answer(kind, request_id, sockets))
                    }
                };
                if let Some(answer) = answer {
                    adapter.respond(channel, answer.to_string().into_bytes());
                }
            });
        }
        // 6 (serverSideEmit): Switchboard has no server-side handlers; a Node peer without
        // one does not answer either.
        _ => {}
    }
}

fn sockets_answer(kind: u64, request_id: String, sockets: Vec<hub::SocketInfo>) -> Value {
    let sockets: Vec<Value> = if kind == kind::SOCKETS {
        sockets.into_iter().map(|s| Value::from(&*s.sid)).collect()
    } else {
        let now = chrono::Utc::now();
        sockets
            .into_iter()
            .map(|s| {
                json!({
                    "id": &*s.sid,
                    // Node reads a handshake from every socket; ours are not kept, so an
                    // honest empty one.
                    "handshake": {
                        "headers": {}, "time": now.to_rfc2822(), "address": "",
                        "xdomain": false, "secure": false, "issued": now.timestamp_millis(),
                        "url": "/socket.io/", "query": {}, "auth": {},
                    },
                    "rooms": s.rooms,
                    "data": {},
                })
            })
            .collect()
    };
    json!({ "requestId": request_id, "sockets": sockets })
}

/// Type 7: delivers the packet asking our clients for acks, and answers with how many
/// clients got it (always, even 0: the requester waits for every server's count).
#[allow(clippy::too_many_arguments)]
async fn broadcast_with_ack(
    adapter: &Arc<Adapter>,
    hub: &Addr<Hub>,
    nsp: Arc<str>,
    target: Option<Target>,
    data: Option<Mp>,
    timeout_ms: Option<u64>,
    request_id: String,
    channel: &str,
) -> Option<Value> {
    let (target, data) = (target?, data?);
    let wait = timeout_ms.map_or(ACK_WAIT, |ms| Duration::from_millis(ms).min(ACK_WAIT_MAX));
    let id = adapter.expect_acks(request_id.clone(), channel.to_owned(), wait);
    let frame = wire::event_frame(&nsp, &data, Some(id))?;
    let count = hub
        .send(hub::Broadcast {
            nsp,
            target,
            frame,
            publish: false,
        })
        .await
        .unwrap_or_default();
    Some(
        json!({ "type": kind::BROADCAST_CLIENT_COUNT, "requestId": request_id, "clientCount": count }),
    )
}

/// The first argument of a client's ack as the requester receives it (binary inline).
pub(crate) fn ack_arg(args: Option<Value>, attachments: &[actix_web::web::Bytes]) -> Mp {
    match args {
        Some(Value::Array(mut items)) if !items.is_empty() => {
            wire::json_to_mp(items.swap_remove(0), attachments)
        }
        _ => Mp::Nil,
    }
}
