//! Connection caps, admission, slow clients and handlers in flight, each on
//! a server of its own with small limits.

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::{json, Value};
use switchboard::realtime::{echo, DisconnectReason, SocketIoConfig};
use tokio_tungstenite::tungstenite::Message;

use crate::support::*;

/// A server with the conformance timings and `limits` applied.
fn server_with(limits: impl FnOnce(&mut SocketIoConfig)) -> u16 {
    let mut config = echo::conformance_config();
    limits(&mut config);
    spawn_server(config).0
}

/// A client whose connections come from `ip` (any 127.x address reaches
/// the loopback listener).
fn client_from(ip: [u8; 4]) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(IpAddr::V4(Ipv4Addr::from(ip)))
        .build()
        .expect("client")
}

async fn handshake(client: &reqwest::Client, port: u16) -> (u16, Value) {
    let res = client
        .get(format!(
            "http://127.0.0.1:{port}/socket.io/?EIO=4&transport=polling"
        ))
        .send()
        .await
        .expect("GET");
    let status = res.status().as_u16();
    let body = res.text().await.expect("body");
    let json = match body.strip_prefix('0') {
        Some(open) if status == 200 => serde_json::from_str(open).expect("open JSON"),
        _ => serde_json::from_str(&body).expect("error JSON"),
    };
    (status, json)
}

async fn ws_at(port: u16) -> Result<Ws, tokio_tungstenite::tungstenite::Error> {
    let url = format!("ws://127.0.0.1:{port}/socket.io/?EIO=4&transport=websocket");
    tokio_tungstenite::connect_async(url)
        .await
        .map(|(ws, _)| ws)
}

/// A WebSocket on `/chat` of the server at `port`; returns it and its socket id.
async fn chat_at(port: u16, user: &str) -> (Ws, String) {
    let mut ws = ws_at(port).await.expect("websocket");
    assert!(recv_raw_text(&mut ws).await.starts_with('0'));
    send(&mut ws, &format!(r#"40/chat,{{"token":"{user}"}}"#)).await;
    let answer = recv_text(&mut ws).await;
    let handshake: Value =
        serde_json::from_str(answer.strip_prefix("40/chat,").expect("CONNECT")).expect("JSON");
    (ws, handshake["sid"].as_str().expect("sid").to_owned())
}

fn refused_status(err: tokio_tungstenite::tungstenite::Error) -> u16 {
    match err {
        tokio_tungstenite::tungstenite::Error::Http(res) => res.status().as_u16(),
        other => panic!("expected an HTTP refusal, got {other}"),
    }
}

async fn wait_for_reason(sid: &str) -> Option<DisconnectReason> {
    for _ in 0..50 {
        if let Some(reason) = disconnect_reason(sid) {
            return Some(reason);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    None
}

#[tokio::test]
async fn connections_per_address_are_capped_with_429() {
    let port = server_with(|c| c.max_connections_per_ip = 2);
    let local = client_from([127, 0, 0, 1]);
    let (_, first) = handshake(&local, port).await;
    let ws = ws_at(port).await.expect("second connection");
    let (status, body) = handshake(&local, port).await;
    assert_eq!(status, 429);
    assert_eq!(
        body,
        json!({"code": 4, "message": "Too many connections from this address"})
    );
    assert_eq!(
        refused_status(ws_at(port).await.expect_err("over cap")),
        429
    );

    // Another address has its own allowance.
    assert_eq!(handshake(&client_from([127, 0, 0, 2]), port).await.0, 200);

    // A closed connection gives its place back.
    drop(ws);
    let sid = first["sid"].as_str().expect("sid");
    let close = local
        .post(format!(
            "http://127.0.0.1:{port}/socket.io/?EIO=4&transport=polling&sid={sid}"
        ))
        .body("1")
        .send()
        .await
        .expect("POST");
    assert_eq!(close.status().as_u16(), 200);
    let mut status = 0;
    for _ in 0..50 {
        status = handshake(&local, port).await.0;
        if status == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(status, 200, "places given back after close");
}

#[tokio::test]
async fn connections_in_total_are_capped_with_503() {
    let port = server_with(|c| c.max_connections = 2);
    let (one, two) = (client_from([127, 0, 0, 3]), client_from([127, 0, 0, 4]));
    assert_eq!(handshake(&one, port).await.0, 200);
    assert_eq!(handshake(&two, port).await.0, 200);
    let (status, body) = handshake(&client_from([127, 0, 0, 5]), port).await;
    assert_eq!(status, 503);
    assert_eq!(
        body,
        json!({"code": 4, "message": "Server at its connection limit"})
    );
    assert_eq!(
        refused_status(ws_at(port).await.expect_err("over cap")),
        503
    );
}

#[tokio::test]
async fn connections_not_admitted_in_time_are_closed() {
    let port = server_with(|c| {
        c.admission_timeout = Some(Duration::from_millis(400));
        c.ping_interval = Duration::from_secs(10);
    });
    let (mut idle, idle_sid) = chat_at(port, "user-idle").await;
    let (mut admitted, _) = chat_at(port, "user-ok").await;
    send(&mut admitted, r#"42/chat,1["admit"]"#).await;
    assert_eq!(recv_text(&mut admitted).await, r#"43/chat,1["admitted"]"#);

    expect_closed(&mut idle, PATIENCE).await;
    assert_eq!(
        wait_for_reason(&idle_sid).await,
        Some(DisconnectReason::NotAdmitted)
    );
    // The admitted one outlives the timeout (answering pings meanwhile).
    tokio::time::sleep(Duration::from_millis(400)).await;
    send(&mut admitted, r#"42/chat,2["whoami"]"#).await;
    assert_eq!(recv_text(&mut admitted).await, r#"43/chat,2["user-ok"]"#);
}

#[tokio::test]
async fn slow_websocket_client_is_disconnected_not_buffered_for() {
    let port = server_with(|c| {
        c.max_outbound_queue = 64;
        // Neither client answers pings while the test holds them.
        c.ping_interval = Duration::from_secs(10);
    });
    let (mut slow, slow_sid) = chat_at(port, "user-slow").await;
    send(&mut slow, r#"42/chat,1["join","flood"]"#).await;
    assert_eq!(recv_text(&mut slow).await, r#"43/chat,1["joined"]"#);
    let (mut sender, _) = chat_at(port, "user-sender").await;

    // 32 MB to a client that reads nothing: more than the socket buffers
    // hold, so packets wait on the server.
    let count = 2_000;
    send(
        &mut sender,
        &format!(r#"42/chat,1["flood","flood",{count},16384]"#),
    )
    .await;
    assert_eq!(recv_text(&mut sender).await, r#"43/chat,1["flooded"]"#);
    tokio::time::sleep(Duration::from_millis(500)).await;

    // Reading now: what was already on its way, then the close.
    let mut received = 0;
    let read = async {
        while let Some(Ok(msg)) = slow.next().await {
            match msg {
                Message::Text(t) if t.starts_with("42/chat,[\"flooded\"") => received += 1,
                Message::Close(_) => break,
                _ => {}
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(20), read)
        .await
        .expect("slow client closed");
    assert!(received < count, "all {count} messages were buffered");
    assert_eq!(
        wait_for_reason(&slow_sid).await,
        Some(DisconnectReason::SlowClient)
    );
    // The sender is unaffected.
    send(&mut sender, r#"42/chat,2["whoami"]"#).await;
    assert_eq!(recv_text(&mut sender).await, r#"43/chat,2["user-sender"]"#);
}

#[tokio::test]
async fn slow_polling_client_is_disconnected_not_buffered_for() {
    let port = server_with(|c| c.max_outbound_queue = 64);
    let http = client_from([127, 0, 0, 1]);
    let (_, open) = handshake(&http, port).await;
    let url = format!(
        "http://127.0.0.1:{port}/socket.io/?EIO=4&transport=polling&sid={}",
        open["sid"].as_str().expect("sid")
    );
    let post = |body: &'static str| {
        let (http, url) = (http.clone(), url.clone());
        async move {
            let res = http.post(&url).body(body).send().await.expect("POST");
            res.status().as_u16()
        }
    };
    assert_eq!(post(r#"40/chat,{"token":"user-poll"}"#).await, 200);
    let connected = http.get(&url).send().await.expect("GET");
    let connected = connected.text().await.expect("body");
    let joined: Value = serde_json::from_str(
        connected
            .strip_prefix("40/chat,")
            .expect("CONNECT")
            .split('\x1e')
            .next()
            .expect("packet"),
    )
    .expect("JSON");
    let sid = joined["sid"].as_str().expect("socket id").to_owned();
    assert_eq!(post(r#"42/chat,["join","poll-flood"]"#).await, 200);

    // It does not poll while 100 messages come for it.
    let (mut sender, _) = chat_at(port, "user-sender").await;
    send(&mut sender, r#"42/chat,1["flood","poll-flood",100,10]"#).await;
    assert_eq!(recv_text(&mut sender).await, r#"43/chat,1["flooded"]"#);
    assert_eq!(
        wait_for_reason(&sid).await,
        Some(DisconnectReason::SlowClient)
    );
    let gone = http.get(&url).send().await.expect("GET");
    assert_eq!(gone.status().as_u16(), 400);
}

#[tokio::test]
async fn too_many_handlers_in_flight_close_the_connection() {
    let port = server_with(|c| c.max_handlers_in_flight = 2);
    let (mut ws, sid) = chat_at(port, "user-busy").await;
    // Two slow handlers at once are fine.
    send(&mut ws, r#"42/chat,1["slow",300]"#).await;
    send(&mut ws, r#"42/chat,2["slow",300]"#).await;
    assert_eq!(recv_text(&mut ws).await, r#"43/chat,1["done"]"#);
    assert_eq!(recv_text(&mut ws).await, r#"43/chat,2["done"]"#);
    // A third while two run is refused by closing the connection.
    for id in 3..6 {
        send(&mut ws, &format!(r#"42/chat,{id}["slow",1000]"#)).await;
    }
    expect_closed(&mut ws, PATIENCE).await;
    assert_eq!(
        wait_for_reason(&sid).await,
        Some(DisconnectReason::ServerClose)
    );
}
