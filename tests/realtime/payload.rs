//! Long-polling request bodies against maxPayload (announced in the open
//! packet), as Engine.IO's reference server treats them: a POST body over it
//! is answered 413 and ends the session; the server reads no more of it than
//! maxPayload, so a body announced longer is refused before any of it is
//! sent, and a chunked one is cut off as soon as it passes the limit.

use std::sync::OnceLock;
use std::time::Duration;

use serde_json::{json, Value};
use switchboard::realtime::{echo, DisconnectReason, SocketIoConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::support::*;

/// A server of its own whose sessions outlive the test without pongs (the
/// shared one drops a silent session after 500 ms, which a slow machine may
/// reach between two requests), so every close seen here is the body's.
fn port() -> u16 {
    static PORT: OnceLock<u16> = OnceLock::new();
    *PORT.get_or_init(|| {
        let config = SocketIoConfig {
            ping_interval: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(30),
            ..echo::conformance_config()
        };
        spawn_server(config).0
    })
}

fn path(sid: &str) -> String {
    format!("/socket.io/?EIO=4&transport=polling&sid={sid}")
}

fn url(sid: &str) -> String {
    format!("http://127.0.0.1:{}{}", port(), path(sid))
}

/// A polling session joined to `/chat` as `user`: (session id, maxPayload
/// it announced, socket id in `/chat`).
async fn chat_session(http: &reqwest::Client, user: &str) -> (String, usize, String) {
    let open = http
        .get(format!(
            "http://127.0.0.1:{}/socket.io/?EIO=4&transport=polling",
            port()
        ))
        .send()
        .await
        .expect("handshake");
    let open = open.text().await.expect("body");
    let open: Value = serde_json::from_str(open.strip_prefix('0').expect("open")).expect("JSON");
    let sid = open["sid"].as_str().expect("sid").to_owned();
    let max = usize::try_from(open["maxPayload"].as_u64().expect("maxPayload")).expect("usize");
    let joined = http
        .post(url(&sid))
        .body(format!(r#"40/chat,{{"token":"{user}"}}"#))
        .send()
        .await
        .expect("POST");
    assert_eq!(joined.status().as_u16(), 200);
    let answer = http.get(url(&sid)).send().await.expect("GET");
    let answer = answer.text().await.expect("body");
    let connect = answer
        .split('\x1e')
        .find_map(|p| p.strip_prefix("40/chat,"))
        .unwrap_or_else(|| panic!("CONNECT in {answer:?}"));
    let connect: Value = serde_json::from_str(connect).expect("JSON");
    let socket = connect["sid"].as_str().expect("socket id").to_owned();
    (sid, max, socket)
}

/// Writes `head` (and then `body`, if any) on a fresh connection and reads
/// the answer, sending nothing more: a server that waits for more of the
/// body never answers, and the test fails after [`PATIENCE`].
async fn raw_post(head: String, body: Option<Vec<u8>>) -> (u16, Value) {
    let mut tcp = TcpStream::connect(("127.0.0.1", port()))
        .await
        .expect("connect");
    tcp.write_all(head.as_bytes()).await.expect("head");
    let (mut read, mut write) = tcp.into_split();
    // Written alongside the read: the server may answer before taking it all.
    let writer = tokio::spawn(async move {
        if let Some(body) = body {
            let _ = write.write_all(&body).await;
        }
        write // kept open: the body never ends
    });
    let answer = tokio::time::timeout(PATIENCE, read_response(&mut read))
        .await
        .expect("an answer before the body ended");
    drop(writer);
    answer
}

/// Status and JSON body of one HTTP/1.1 response with a Content-Length.
async fn read_response(read: &mut (impl AsyncReadExt + Unpin)) -> (u16, Value) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = read.read(&mut chunk).await.expect("read");
        assert!(n > 0, "connection closed without an answer");
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_lowercase();
    let status: u16 = head[9..12].parse().expect("status");
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .expect("content-length")
        .trim()
        .parse()
        .expect("length");
    while buf.len() < head_end + length {
        let n = read.read(&mut chunk).await.expect("read");
        assert!(n > 0, "connection closed inside the answer");
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = serde_json::from_slice(&buf[head_end..head_end + length]).expect("JSON body");
    (status, body)
}

/// The session is over: its socket left `/chat` because of the body, and
/// the sid is unknown to later requests.
async fn assert_session_closed(http: &reqwest::Client, sid: &str, socket: &str) {
    let mut reason = None;
    for _ in 0..100 {
        reason = disconnect_reason(socket);
        if reason.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(reason, Some(DisconnectReason::ParseError));
    for request in [http.get(url(sid)), http.post(url(sid)).body("3")] {
        let res = request.send().await.expect("request");
        assert_eq!(res.status().as_u16(), 400);
        let body: Value = res.json().await.expect("JSON");
        assert_eq!(body, json!({"code": 1, "message": "Session ID unknown"}));
    }
}

fn too_large() -> Value {
    json!({"code": 3, "message": "Payload too large"})
}

#[tokio::test]
async fn post_announced_over_max_payload_is_refused_unread_and_ends_session() {
    let http = reqwest::Client::new();
    for (round, over) in [1, 1 << 40].into_iter().enumerate() {
        let user = format!("user-announced-{round}");
        let (sid, max, socket) = chat_session(&http, &user).await;
        let head = format!(
            "POST {} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain;charset=UTF-8\r\n\
             Content-Length: {}\r\n\r\n",
            path(&sid),
            max + over
        );
        // Not one byte of the body is sent.
        assert_eq!(raw_post(head, None).await, (413, too_large()));
        assert_session_closed(&http, &sid, &socket).await;
    }
}

#[tokio::test]
async fn chunked_post_is_cut_off_past_max_payload_and_ends_session() {
    let http = reqwest::Client::new();
    let (sid, max, socket) = chat_session(&http, "user-chunked").await;
    let head = format!(
        "POST {} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain;charset=UTF-8\r\n\
         Transfer-Encoding: chunked\r\n\r\n",
        path(&sid)
    );
    // maxPayload + 1 bytes of one ping packet in 16 KiB chunks, and no last
    // chunk: the body has not ended when the answer must come.
    let payload = format!("2{}", "x".repeat(max));
    let mut body = Vec::new();
    for part in payload.as_bytes().chunks(16 * 1024) {
        body.extend_from_slice(format!("{:x}\r\n", part.len()).as_bytes());
        body.extend_from_slice(part);
        body.extend_from_slice(b"\r\n");
    }
    assert_eq!(raw_post(head, Some(body)).await, (413, too_large()));
    assert_session_closed(&http, &sid, &socket).await;
}

#[tokio::test]
async fn post_of_exactly_max_payload_is_accepted() {
    let http = reqwest::Client::new();
    let (sid, max, _) = chat_session(&http, "user-at-limit").await;
    let data = "x".repeat(max - 1);
    let res = http
        .post(url(&sid))
        .body(format!("2{data}"))
        .send()
        .await
        .expect("POST");
    assert_eq!(res.status().as_u16(), 200);
    assert_eq!(res.text().await.expect("body"), "ok");
    let res = http.get(url(&sid)).send().await.expect("GET");
    let body = res.text().await.expect("body");
    assert!(
        body.split('\x1e').any(|p| p == format!("3{data}")),
        "pong missing"
    );
}
