//! Rooms across nodes: two servers over one real `redis-server`, each with its own clients.
//! A broadcast made on one node reaches the sockets of its target on the other, with the
//! sender's exceptions; servers under another key hear nothing; and when Redis goes away each
//! node keeps its own rooms and reconnects once it is back.

use std::time::{Duration, Instant};

use serde_json::json;
use switchboard::realtime::RedisAdapterConfig;

use crate::support::*;

#[path = "../cluster/redis.rs"]
mod redis_server;
pub use redis_server::Redis;

pub fn adapter(redis: &Redis, key: &str) -> RedisAdapterConfig {
    RedisAdapterConfig {
        url: redis.url.clone(),
        key: key.to_owned(),
        roots: Default::default(),
    }
}

async fn join(ws: &mut Ws, room: &str) {
    assert_eq!(
        chat_call(ws, 1, json!(["join", room])).await,
        json!(["joined"])
    );
}

/// Two nodes under `key` and one client in r1 of `/chat` per entry of `on`, on node 0 or 1.
async fn clients_in_r1<const N: usize>(redis: &Redis, key: &str, on: &[usize; N]) -> [Ws; N] {
    let nodes = [
        spawn_cluster_node(adapter(redis, key)).0,
        spawn_cluster_node(adapter(redis, key)).0,
    ];
    redis.wait_for_servers(key, 2).await;
    let mut clients = Vec::with_capacity(N);
    for (i, node) in on.iter().enumerate() {
        let (mut ws, _) = chat_connect_at(nodes[*node], "/chat,", &format!("user-{i}")).await;
        join(&mut ws, "r1").await;
        clients.push(ws);
    }
    clients.try_into().unwrap_or_else(|_| unreachable!())
}

/// Nothing came in for a while: the next message is the answer to a fresh call.
async fn got_nothing(ws: &mut Ws) {
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        chat_call(ws, 9, json!(["admit"])).await,
        json!(["admitted"])
    );
}

#[tokio::test]
async fn a_broadcast_on_one_node_reaches_its_room_on_the_other() {
    let redis = Redis::start();
    let (node_a, _) = spawn_cluster_node(adapter(&redis, "t-span"));
    let (node_b, _) = spawn_cluster_node(adapter(&redis, "t-span"));
    let (elsewhere, _) = spawn_cluster_node(adapter(&redis, "t-other"));
    redis.wait_for_servers("t-span", 2).await;
    redis.wait_for_servers("t-other", 1).await;

    let (mut a, _) = chat_connect_at(node_a, "/chat,", "user-a").await;
    let (mut b, b_sid) = chat_connect_at(node_b, "/chat,", "user-b").await;
    let (mut b2, _) = chat_connect_at(node_b, "/chat,", "user-b2").await;
    let (mut other, _) = chat_connect_at(elsewhere, "/chat,", "user-o").await;
    for ws in [&mut a, &mut b, &mut other] {
        join(ws, "r1").await;
    }
    join(&mut b2, "r2").await;

    // "Everyone else in the room": on the other node too, never back to the sender.
    send(&mut a, r#"42/chat,["say","r1","hi"]"#).await;
    assert_eq!(recv_text(&mut b).await, r#"42/chat,["said","hi"]"#);
    // A server emit on B reaches A's socket (and B's own).
    send(&mut b, r#"42/chat,["announce","r1","news"]"#).await;
    assert_eq!(recv_text(&mut a).await, r#"42/chat,["announced","news"]"#);
    assert_eq!(recv_text(&mut b).await, r#"42/chat,["announced","news"]"#);
    // A socket is the room of its own id, across nodes.
    send(
        &mut a,
        &format!(r#"42/chat,["announce","{b_sid}","direct"]"#),
    )
    .await;
    assert_eq!(recv_text(&mut b).await, r#"42/chat,["announced","direct"]"#);
    // Several rooms less an excepted one; then every socket of the namespace.
    let tell = json!(["tell", ["r1", "r2"], [b_sid], "both"]);
    send(&mut a, &format!("42/chat,{tell}")).await;
    assert_eq!(recv_text(&mut a).await, r#"42/chat,["told","both"]"#);
    assert_eq!(recv_text(&mut b2).await, r#"42/chat,["told","both"]"#);
    send(&mut b2, r#"42/chat,["tell",[],[],"all"]"#).await;
    for ws in [&mut a, &mut b, &mut b2] {
        assert_eq!(recv_text(ws).await, r#"42/chat,["told","all"]"#);
    }

    // Not the sender of "say", and nothing under another key.
    got_nothing(&mut a).await;
    got_nothing(&mut b).await;
    got_nothing(&mut other).await;
}

#[tokio::test]
async fn without_redis_a_node_keeps_its_rooms_and_reconnects() {
    let redis = Redis::start();
    let [mut a, mut a2, mut b] = clients_in_r1(&redis, "t-drop", &[0, 0, 1]).await;

    let port = redis.stop();
    send(&mut a, r#"42/chat,["shout","r1","alone"]"#).await;
    assert_eq!(recv_text(&mut a).await, r#"42/chat,["shouted","alone"]"#);
    assert_eq!(recv_text(&mut a2).await, r#"42/chat,["shouted","alone"]"#);

    let redis = Redis::start_on(port);
    redis.wait_for_servers("t-drop", 2).await;
    // The first publish after the outage may find the old connection broken; the
    // publisher reconnects on the next.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        send(&mut a, r#"42/chat,["say","r1","back"]"#).await;
        assert_eq!(recv_text(&mut a2).await, r#"42/chat,["said","back"]"#);
        match tokio::time::timeout(Duration::from_millis(500), recv_text(&mut b)).await {
            Ok(text) => {
                assert_eq!(text, r#"42/chat,["said","back"]"#);
                break;
            }
            Err(_) => assert!(Instant::now() < deadline, "node B never heard A again"),
        }
    }
}

#[tokio::test]
async fn malformed_messages_from_the_fleet_are_ignored() {
    let redis = Redis::start();
    let [mut a, mut b] = clients_in_r1(&redis, "t-junk", &[0, 1]).await;

    let client = redis::Client::open(redis.url.as_str()).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let junk: [(&str, &[u8]); 8] = [
        ("t-junk#/chat#", br#"{"uid":"x"}"#),
        ("t-junk#/chat#r1#", b"\x93\xa1x"),
        ("t-junk#/chat#r1#", b"\x93\xa1x\x80\x80\x00"),
        // An event without a name, and one whose opts are not arrays.
        (
            "t-junk#/chat#r1#",
            b"\x93\xa1x\x82\xa4type\x02\xa4data\x91\x01\x80",
        ),
        (
            "t-junk#/chat#",
            b"\x93\xa1x\x82\xa4type\x02\xa4data\x91\xa1e\x81\xa5rooms\x01",
        ),
        (
            "t-junk-request#/chat#",
            br#"{"uid":"x","requestId":"r","type":5}"#,
        ),
        (
            "t-junk-request#/chat#",
            br#"{"uid":"x","type":7,"requestId":"r"}"#,
        ),
        ("t-junk-request#/chat#", b"not json, not msgpack \xc1"),
    ];
    for (channel, payload) in junk {
        let _: () = redis::cmd("PUBLISH")
            .arg(channel)
            .arg(payload)
            .query_async(&mut conn)
            .await
            .unwrap();
    }

    // Both nodes go on serving and hearing each other.
    send(&mut a, r#"42/chat,["say","r1","still here"]"#).await;
    assert_eq!(recv_text(&mut b).await, r#"42/chat,["said","still here"]"#);
    got_nothing(&mut a).await;
}
