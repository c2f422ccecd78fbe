//! A raw Socket.IO client over tokio-tungstenite, for the services' socket tests.

use crate::helpers::TestApp;
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

/// A raw Socket.IO client over tokio-tungstenite (Engine.IO v4 WebSocket transport).
pub struct Sio {
    ws: tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
}

impl Sio {
    /// A socket on the interview listener, without auth.
    pub async fn connect(app: &TestApp) -> Self {
        Self::open(&app.interview, json!({}))
            .await
            .expect("connect answer")
    }

    /// Connects to the Socket.IO server at `base` (an http URL) with the handshake `auth`;
    /// a refusal answers the CONNECT_ERROR payload.
    pub async fn open(base: &str, auth: Value) -> Result<Self, Value> {
        let base = base.replacen("http://", "ws://", 1);
        let (ws, _) = tokio_tungstenite::connect_async(format!(
            "{base}/socket.io/?EIO=4&transport=websocket"
        ))
        .await
        .expect("websocket");
        let mut s = Self { ws };
        assert!(s.raw().await.starts_with('0'), "open packet");
        s.send(&format!("40{auth}")).await;
        let answer = s.raw().await;
        if let Some(refusal) = answer.strip_prefix("44") {
            return Err(serde_json::from_str(refusal).expect("CONNECT_ERROR JSON"));
        }
        assert!(answer.starts_with("40{\"sid\""), "connect answer: {answer}");
        Ok(s)
    }

    /// Asserts that no event arrives within `within` (pings are answered meanwhile).
    pub async fn silent_for(&mut self, within: Duration) {
        if let Ok(event) = tokio::time::timeout(within, self.event()).await {
            panic!("unexpected event {event:?}");
        }
    }

    /// Waits until the server ends the connection (a DISCONNECT packet or the close).
    pub async fn closed_within(&mut self, within: Duration) {
        let ending = async {
            while let Some(Ok(m)) = self.ws.next().await {
                if let Message::Text(t) = &m {
                    if t.as_str() == "41" || t.as_str() == "1" {
                        return;
                    }
                }
                if let Message::Close(_) = m {
                    return;
                }
            }
        };
        tokio::time::timeout(within, ending)
            .await
            .expect("the server closes the socket");
    }

    async fn send(&mut self, text: &str) {
        self.ws.send(Message::text(text)).await.expect("send");
    }

    async fn raw(&mut self) -> String {
        loop {
            let m = tokio::time::timeout(Duration::from_secs(5), self.ws.next())
                .await
                .expect("a frame within 5 s")
                .expect("open")
                .expect("frame");
            if let Message::Text(t) = m {
                if t.as_str() == "2" {
                    self.send("3").await;
                    continue;
                }
                return t.to_string();
            }
        }
    }

    pub async fn emit(&mut self, event: &str, data: Value) {
        self.send(&format!("42{}", json!([event, data]))).await;
    }

    /// The next event as (name, first argument).
    pub async fn event(&mut self) -> (String, Value) {
        loop {
            let t = self.raw().await;
            if let Some(rest) = t.strip_prefix("42") {
                let v: Value = serde_json::from_str(rest).expect("event JSON");
                return (v[0].as_str().unwrap_or("").to_owned(), v[1].clone());
            }
        }
    }

    /// The next event, which must be `name`; returns its argument. Whatever else comes
    /// first (a duplicate, an echo of the socket's own action, someone else's event) fails.
    pub async fn next(&mut self, name: &str) -> Value {
        let (n, v) = self.event().await;
        assert_eq!(n, name, "expected {name} next, got {n}: {v}");
        v
    }

    /// Every event up to and including `last`.
    pub async fn collect_until(&mut self, last: &str) -> Vec<(String, Value)> {
        let mut out = Vec::new();
        for _ in 0..50 {
            let (n, v) = self.event().await;
            let done = n == last;
            out.push((n, v));
            if done {
                return out;
            }
        }
        panic!("no {last} event");
    }
}
