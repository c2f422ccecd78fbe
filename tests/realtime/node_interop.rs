//! A Node socket.io server with the real `@socket.io/redis-adapter` from npm
//! (tests/cluster/node, installed by scripts/setup) and a Switchboard node in one fleet:
//! room broadcasts cross in both directions, and Node's cluster requests (fetchSockets,
//! serverCount, broadcasts with acks, socketsJoin) are answered by Switchboard.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::cluster::{adapter, Redis};
use crate::support::*;

const KEY: &str = "switchboard/interop";

/// `node server.js` over `redis`; every JSON line it prints is kept.
struct NodePeer {
    child: Child,
    port: u16,
    lines: Arc<Mutex<Vec<Value>>>,
}

impl NodePeer {
    fn start(redis: &Redis) -> Self {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cluster/node");
        assert!(
            std::path::Path::new(dir).join("node_modules").is_dir(),
            "run scripts/setup: tests/cluster/node needs `npm ci`"
        );
        let mut child = Command::new("node")
            .arg("server.js")
            .current_dir(dir)
            .env("REDIS_URL", &redis.url)
            .env("KEY", KEY)
            .env("ROOM", "r1")
            .stdout(Stdio::piped())
            .spawn()
            .expect("node (scripts/setup installs it)");
        let stdout = child.stdout.take().expect("stdout");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let kept = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let Ok(value) = serde_json::from_str::<Value>(&line) else {
                    continue;
                };
                if value["ready"] == json!(true) {
                    let _ = ready_tx.send(value["port"].as_u64().unwrap_or_default());
                }
                kept.lock().unwrap().push(value);
            }
        });
        let port = ready_rx
            .recv_timeout(Duration::from_secs(20))
            .expect("the Node server never said it was ready");
        Self {
            child,
            port: u16::try_from(port).expect("port"),
            lines,
        }
    }

    async fn get(&self, path_and_query: &str) -> String {
        let url = format!("http://127.0.0.1:{}{path_and_query}", self.port);
        let res = reqwest::get(url).await.expect("Node control endpoint");
        assert!(
            res.status().is_success(),
            "{path_and_query}: {}",
            res.status()
        );
        res.text().await.expect("body")
    }

    /// Waits for the probe client (in room r1 on the Node server) to print `event`.
    async fn probe_got(&self, event: &str) -> Value {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let found = self
                .lines
                .lock()
                .unwrap()
                .iter()
                .find(|l| l["probe"] == json!("event") && l["event"] == json!(event))
                .cloned();
            if let Some(line) = found {
                return line["args"].clone();
            }
            assert!(
                Instant::now() < deadline,
                "the Node probe never got {event}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Drop for NodePeer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn a_node_socket_io_server_and_switchboard_share_rooms() {
    let redis = Redis::start();
    let node = NodePeer::start(&redis);
    let (ours, _) = spawn_cluster_node(adapter(&redis, KEY));
    redis.wait_for_servers(KEY, 2).await;
    assert_eq!(node.get("/server-count").await, "2", "Node counts us");

    // On Switchboard's `/`, a client in r1.
    let (mut ws, sid) = chat_connect_at(ours, "", "user-rust").await;
    assert_eq!(
        chat_call_in(&mut ws, "", 1, json!(["join", "r1"])).await,
        json!(["joined"])
    );

    // Node -> Switchboard: io.to("r1").emit(...)
    node.get("/emit?room=r1&event=chat&args=%5B%22hello%22%2C%7B%22n%22%3A2.5%7D%5D")
        .await;
    assert_eq!(recv_text(&mut ws).await, r#"42["chat","hello",{"n":2.5}]"#);

    // Switchboard -> Node: a server emit to r1 reaches Node's probe in r1 (and our client).
    send(&mut ws, r#"42["announce","r1","from-rust"]"#).await;
    assert_eq!(recv_text(&mut ws).await, r#"42["announced","from-rust"]"#);
    assert_eq!(node.probe_got("announced").await, json!(["from-rust"]));

    // Node's fetchSockets gets our socket with its rooms, long before its 5 s timeout.
    let started = Instant::now();
    let fetched: Value = serde_json::from_str(&node.get("/fetch-sockets?room=r1").await).unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "took {:?}",
        started.elapsed()
    );
    let sockets = fetched["sockets"].as_array().expect("sockets");
    let mine = sockets
        .iter()
        .find(|s| s["id"] == json!(sid))
        .expect("our socket");
    assert!(
        mine["rooms"].as_array().unwrap().contains(&json!("r1")),
        "{fetched}"
    );
    assert_eq!(sockets.len(), 2, "{fetched}");

    // A broadcast with acks: we count our client, and its ack reaches Node.
    let asking = tokio::spawn({
        let url = format!(
            "http://127.0.0.1:{}/emit-ack?room=r1&event=q&timeout=3000",
            node.port
        );
        async move { reqwest::get(url).await.unwrap().text().await.unwrap() }
    });
    let asked = recv_text(&mut ws).await;
    let id = asked
        .strip_prefix("42")
        .and_then(|rest| rest.strip_suffix(r#"["q"]"#))
        .unwrap_or_else(|| panic!("{asked}"));
    send(&mut ws, &format!(r#"43{id}["rust-ack"]"#)).await;
    let answer: Value = serde_json::from_str(&asking.await.unwrap()).unwrap();
    assert_eq!(answer["error"], Value::Null, "{answer}");
    let responses = answer["responses"].as_array().expect("responses");
    assert!(responses.contains(&json!("rust-ack")), "{answer}");
    assert_eq!(responses.len(), 2, "{answer}");

    // socketsJoin from Node puts our socket in r2, where Node's next emit finds it.
    node.get(&format!("/join?sid={sid}&room=r2")).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    node.get("/emit?room=r2&event=moved&args=%5B1%5D").await;
    assert_eq!(recv_text(&mut ws).await, r#"42["moved",1]"#);
}
