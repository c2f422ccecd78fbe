//! Starts the echo server once per test binary and speaks the raw protocol.

use std::sync::OnceLock;
use std::time::Duration;

use actix_web::{App, HttpServer};
use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use switchboard::realtime::{self, echo};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

pub type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Long enough for anything the server should do promptly.
pub const PATIENCE: Duration = Duration::from_secs(3);

static PORT: OnceLock<u16> = OnceLock::new();

/// The port of a conformance server running on its own actix System.
pub fn port() -> u16 {
    *PORT.get_or_init(|| {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind test port");
        let port = listener.local_addr().expect("local addr").port();
        std::thread::spawn(move || {
            actix_web::rt::System::new().block_on(async move {
                let server = echo::conformance_server();
                HttpServer::new(move || App::new().service(realtime::scope(server.clone())))
                    .workers(2)
                    .listen(listener)
                    .expect("listen")
                    .run()
                    .await
            })
        });
        port
    })
}

pub fn http_url(query: &str) -> String {
    format!("http://127.0.0.1:{}/socket.io/?{query}", port())
}

fn ws_url(query: &str) -> String {
    format!("ws://127.0.0.1:{}/socket.io/?{query}", port())
}

pub async fn get(query: &str) -> (u16, String) {
    let res = reqwest::get(http_url(query)).await.expect("GET");
    let status = res.status().as_u16();
    (status, res.text().await.expect("body"))
}

pub async fn post(query: &str, body: &str) -> (u16, String) {
    let res = reqwest::Client::new()
        .post(http_url(query))
        .body(body.to_owned())
        .send()
        .await
        .expect("POST");
    let status = res.status().as_u16();
    (status, res.text().await.expect("body"))
}

/// Opens a long-polling session; returns its sid and the open packet JSON.
pub async fn open_polling() -> (String, Value) {
    let (status, body) = get("EIO=4&transport=polling").await;
    assert_eq!(status, 200, "{body}");
    let json: Value =
        serde_json::from_str(body.strip_prefix('0').expect("open packet")).expect("open JSON");
    let sid = json["sid"].as_str().expect("sid").to_owned();
    (sid, json)
}

pub fn sid_query(sid: &str) -> String {
    format!("EIO=4&transport=polling&sid={sid}")
}

pub async fn ws_connect(query: &str) -> Result<Ws, tokio_tungstenite::tungstenite::Error> {
    tokio_tungstenite::connect_async(ws_url(query))
        .await
        .map(|(ws, _)| ws)
}

/// A WebSocket session past the Engine.IO open packet (returned).
pub async fn ws_open() -> (Ws, Value) {
    let mut ws = ws_connect("EIO=4&transport=websocket")
        .await
        .expect("websocket connect");
    let open = recv_raw_text(&mut ws).await;
    let json = serde_json::from_str(open.strip_prefix('0').expect("open packet")).expect("JSON");
    (ws, json)
}

/// A WebSocket connected to the main namespace, auth packet consumed.
pub async fn ws_connected() -> Ws {
    let (mut ws, _) = ws_open().await;
    send(&mut ws, "40").await;
    assert!(recv_text(&mut ws).await.starts_with("40{\"sid\":"));
    assert_eq!(recv_text(&mut ws).await, r#"42["auth",{}]"#);
    ws
}

pub async fn send(ws: &mut Ws, text: &str) {
    ws.send(Message::text(text)).await.expect("send");
}

pub async fn send_binary(ws: &mut Ws, data: &[u8]) {
    ws.send(Message::binary(data.to_vec())).await.expect("send");
}

/// The next message, whatever it is.
pub async fn recv_raw(ws: &mut Ws) -> Option<Message> {
    match tokio::time::timeout(PATIENCE, ws.next()).await {
        Ok(Some(Ok(msg))) => Some(msg),
        Ok(_) => None,
        Err(_) => panic!("no message within {PATIENCE:?}"),
    }
}

pub async fn recv_raw_text(ws: &mut Ws) -> String {
    match recv_raw(ws).await {
        Some(Message::Text(t)) => t.to_string(),
        other => panic!("expected text, got {other:?}"),
    }
}

/// The next data message, answering pings on the way.
pub async fn recv(ws: &mut Ws) -> Message {
    loop {
        match recv_raw(ws).await {
            Some(Message::Text(t)) if t.as_str() == "2" => send(ws, "3").await,
            Some(msg @ (Message::Text(_) | Message::Binary(_))) => return msg,
            Some(_) => {}
            None => panic!("connection closed"),
        }
    }
}

pub async fn recv_text(ws: &mut Ws) -> String {
    match recv(ws).await {
        Message::Text(t) => t.to_string(),
        other => panic!("expected text, got {other:?}"),
    }
}

pub async fn recv_binary(ws: &mut Ws) -> Vec<u8> {
    match recv(ws).await {
        Message::Binary(b) => b.to_vec(),
        other => panic!("expected binary, got {other:?}"),
    }
}

/// Waits for the server to close the socket, answering pings meanwhile;
/// fails if it stays open longer than `within`.
pub async fn expect_closed(ws: &mut Ws, within: Duration) {
    let wait = async {
        loop {
            match ws.next().await {
                Some(Ok(Message::Text(t))) if t.as_str() == "2" => {
                    let _ = ws.send(Message::text("3")).await;
                }
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return,
                Some(Ok(_)) => {}
            }
        }
    };
    tokio::time::timeout(within, wait)
        .await
        .expect("server should have closed the socket");
}
