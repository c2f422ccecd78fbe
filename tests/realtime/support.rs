//! Starts the echo server once per test binary and speaks the raw protocol.

use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use actix_web::{App, HttpServer};
use async_trait::async_trait;
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use switchboard::realtime::{
    self, echo, DisconnectReason, Event, NamespaceHandler, RedisAdapterConfig, SocketHandle,
    SocketIoConfig, SocketIoServer, SocketIoServerBuilder, Target,
};
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
        // Coalescing on, as the server's config has it, so every test
        // runs through the pacer too; a wider window than the default
        // 500 µs so that a slow debug build on a busy CI machine still
        // reaches the activation rate (8 frames per window).
        let config = SocketIoConfig {
            coalesce_window: Duration::from_millis(2),
            ..echo::conformance_config()
        };
        spawn_server(config).0
    })
}

/// Starts a server with the test namespaces and `config` on its own actix
/// System and port (tests of limits get their own so that they neither
/// see nor disturb the other tests' connections).
pub fn spawn_server(config: SocketIoConfig) -> (u16, SocketIoServer) {
    spawn(move |this| {
        SocketIoServer::builder(config)
            .namespace(
                "/",
                echo::Echo {
                    echo_messages: true,
                },
            )
            .namespace(
                "/custom",
                echo::Echo {
                    echo_messages: false,
                },
            )
            .namespace("/chat", Chat(this))
    })
}

/// A node of a cluster over `redis`: the `/chat` API on `/` and on `/chat`, so that a Node
/// socket.io server (which talks on `/`) shares its rooms.
pub fn spawn_cluster_node(redis: RedisAdapterConfig) -> (u16, SocketIoServer) {
    spawn(move |this| {
        // The reference server's timings: sockets idle through a test step stay connected.
        SocketIoServer::builder(SocketIoConfig::default())
            .namespace("/", Chat(this.clone()))
            .namespace("/chat", Chat(this))
            .redis_adapter(Some(redis))
    })
}

/// Starts the server `build` describes (its handlers get the server once built) on its own
/// actix System and port.
fn spawn(
    build: impl FnOnce(Arc<OnceLock<SocketIoServer>>) -> SocketIoServerBuilder + Send + 'static,
) -> (u16, SocketIoServer) {
    // Every test starts a server before its first HTTP client, so the process's crypto
    // provider is in place for them (reqwest brings none of its own: core::tls).
    switchboard::core::tls::install_crypto_provider();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind test port");
    let port = listener.local_addr().expect("local addr").port();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            let this = Arc::new(OnceLock::new());
            let server = build(this.clone()).build();
            let _ = this.set(server.clone());
            let _ = tx.send(server.clone());
            HttpServer::new(move || App::new().service(realtime::scope(server.clone())))
                .workers(2)
                .listen(listener)
                .expect("listen")
                .run()
                .await
        })
    });
    (port, rx.recv().expect("server started"))
}

pub fn http_url(query: &str) -> String {
    format!("http://127.0.0.1:{}/socket.io/?{query}", port())
}

fn ws_url(query: &str) -> String {
    ws_url_at(port(), query)
}

fn ws_url_at(port: u16, query: &str) -> String {
    format!("ws://127.0.0.1:{port}/socket.io/?{query}")
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

/// An HTTP client that keeps its connection open between requests, as
/// browsers and Node's fetch do: a request on it reaches the server without
/// a new TCP handshake.
pub struct KeepAlive(reqwest::Client);

impl KeepAlive {
    pub fn new() -> Self {
        Self(reqwest::Client::new())
    }

    pub async fn get(&self, query: &str) -> (u16, String) {
        let res = self.0.get(http_url(query)).send().await.expect("GET");
        let status = res.status().as_u16();
        (status, res.text().await.expect("body"))
    }

    pub async fn post(&self, query: &str, body: &str) -> (u16, String) {
        let res = self
            .0
            .post(http_url(query))
            .body(body.to_owned())
            .send()
            .await
            .expect("POST");
        let status = res.status().as_u16();
        (status, res.text().await.expect("body"))
    }

    /// Opens a long-polling session on this client's connection.
    pub async fn open_polling(&self) -> String {
        let (status, body) = self.get("EIO=4&transport=polling").await;
        assert_eq!(status, 200, "{body}");
        open_sid(&body)
    }
}

fn open_sid(body: &str) -> String {
    let json: Value =
        serde_json::from_str(body.strip_prefix('0').expect("open packet")).expect("open JSON");
    json["sid"].as_str().expect("sid").to_owned()
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
    ws_open_at(port()).await
}

/// [`ws_open`] on the server at `port`.
pub async fn ws_open_at(port: u16) -> (Ws, Value) {
    let (mut ws, _) =
        tokio_tungstenite::connect_async(ws_url_at(port, "EIO=4&transport=websocket"))
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

/// Answers the pings already waiting on an idle socket, so that it outlives a long step of
/// the test on another socket (the conformance ping interval is 300 ms); anything else
/// arriving fails the test.
pub async fn answer_pings(ws: &mut Ws) {
    while let Ok(next) = tokio::time::timeout(Duration::from_millis(5), ws.next()).await {
        match next {
            Some(Ok(Message::Text(t))) if t.as_str() == "2" => send(ws, "3").await,
            other => panic!("an idle socket got {other:?}"),
        }
    }
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

/// The WebSocket handshake for `query` succeeds and the server closes the
/// socket without sending a packet (`when` names the case in a failure).
pub async fn expect_closed_at_once(query: &str, when: &str) {
    let mut ws = ws_connect(query)
        .await
        .unwrap_or_else(|e| panic!("{when}: handshake failed: {e}"));
    match recv_raw(&mut ws).await {
        Some(Message::Close(_)) | None => {}
        Some(other) => panic!("{when}: got {other:?} instead of the close"),
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

/// (socket id, reason) of every socket that left `/chat`.
pub static DISCONNECTS: Mutex<Vec<(String, DisconnectReason)>> = Mutex::new(Vec::new());

pub fn disconnect_reason(sid: &str) -> Option<DisconnectReason> {
    let seen = DISCONNECTS.lock().unwrap_or_else(|e| e.into_inner());
    seen.iter().find(|(s, _)| s == sid).map(|(_, r)| *r)
}

/// A namespace exercising the application API: auth, rooms, presence,
/// server-side disconnect, admission; holds the server it runs on.
struct Chat(Arc<OnceLock<SocketIoServer>>);

#[async_trait]
impl NamespaceHandler for Chat {
    async fn on_connect(&self, socket: SocketHandle, auth: Value) -> Result<(), String> {
        match auth["token"].as_str() {
            Some(user) if user.starts_with("user-") => {
                socket.set_data(user.to_owned());
                Ok(())
            }
            _ => Err("unauthorized".to_owned()),
        }
    }

    async fn on_event(&self, socket: SocketHandle, event: Event) {
        let arg = |i: usize| {
            event
                .args
                .get(i)
                .and_then(Value::as_str)
                .unwrap_or_default()
        };
        let (room, text) = (arg(0).to_owned(), arg(1).to_owned());
        let reply = match event.name.as_str() {
            "join" => {
                socket.join(room);
                json!("joined")
            }
            "leave" => {
                socket.leave(room);
                json!("left")
            }
            "say" => {
                socket.broadcast_to(&room, "said", &text).expect("encode");
                return;
            }
            "shout" => {
                socket
                    .emit_to_room(&room, "shouted", &text)
                    .expect("encode");
                return;
            }
            "announce" => {
                let server = self.0.get().expect("server");
                server
                    .emit_to_room(socket.namespace(), &room, "announced", &text)
                    .expect("encode");
                return;
            }
            "members" => {
                let server = self.0.get().expect("server");
                json!(server.room_members("/chat", &room).await.len())
            }
            "whoami" => json!(socket.data::<String>().as_deref().map(String::as_str)),
            "id" => json!(socket.id()),
            "kick" => return socket.disconnect(),
            "admit" => {
                socket.admit();
                json!("admitted")
            }
            // Holds a handler for `room` milliseconds (an argument here).
            "slow" => {
                let ms = event.args.first().and_then(Value::as_u64).unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                json!("done")
            }
            // `count` messages of `size` bytes to `room`, through the hub.
            "flood" => {
                let server = self.0.get().expect("server");
                let count = event.args.get(1).and_then(Value::as_u64).unwrap_or(0);
                let size = event.args.get(2).and_then(Value::as_u64).unwrap_or(0);
                let text = "x".repeat(usize::try_from(size).expect("size"));
                for _ in 0..count {
                    server
                        .emit_to_room("/chat", &room, "flooded", &text)
                        .expect("encode");
                }
                json!("flooded")
            }
            "close" => return socket.close(),
            // To the sockets in any of the rooms (every one when none) but the except rooms.
            "tell" => {
                let server = self.0.get().expect("server");
                let rooms = |i: usize| -> Vec<String> {
                    serde_json::from_value(event.args.get(i).cloned().unwrap_or_default())
                        .unwrap_or_default()
                };
                let target = Target {
                    rooms: rooms(0),
                    except: rooms(1),
                };
                let text = event
                    .args
                    .get(2)
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                server
                    .emit_to(socket.namespace(), target, "told", text)
                    .expect("encode");
                return;
            }
            _ => return,
        };
        if let Some(ack) = event.ack {
            ack.send(&[reply]).expect("encode");
        }
    }

    async fn on_disconnect(&self, socket: SocketHandle, reason: DisconnectReason) {
        let mut seen = DISCONNECTS.lock().unwrap_or_else(|e| e.into_inner());
        seen.push((socket.id().to_owned(), reason));
    }
}

/// A WebSocket joined to `/chat` as `user`; returns it and the socket id.
pub async fn chat_connect(user: &str) -> (Ws, String) {
    chat_connect_at(port(), "/chat,", user).await
}

/// A WebSocket joined as `user` to the namespace `nsp` (its packet prefix: `""` for `/`,
/// `"/chat,"`) of the server at `port`.
pub async fn chat_connect_at(port: u16, nsp: &str, user: &str) -> (Ws, String) {
    let (mut ws, _) = ws_open_at(port).await;
    send(&mut ws, &format!(r#"40{nsp}{{"token":"{user}"}}"#)).await;
    let answer = recv_text(&mut ws).await;
    let handshake: Value =
        serde_json::from_str(answer.strip_prefix(&format!("40{nsp}")).expect("CONNECT"))
            .expect("JSON");
    let sid = handshake["sid"].as_str().expect("sid").to_owned();
    (ws, sid)
}

/// Sends `42/chat,<id>[event, args…]` and returns the ack's JSON array.
pub async fn chat_call(ws: &mut Ws, id: u32, args: Value) -> Value {
    chat_call_in(ws, "/chat,", id, args).await
}

/// [`chat_call`] in the namespace with packet prefix `nsp`.
pub async fn chat_call_in(ws: &mut Ws, nsp: &str, id: u32, args: Value) -> Value {
    send(ws, &format!("42{nsp}{id}{args}")).await;
    let answer = recv_text(ws).await;
    let prefix = format!("43{nsp}{id}");
    serde_json::from_str(answer.strip_prefix(&prefix).expect("ACK")).expect("JSON")
}
