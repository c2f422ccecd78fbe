//! Engine.IO: handshake, heartbeat, close, upgrade.

use std::time::Duration;

use serde_json::json;

use crate::support::*;
use tokio_tungstenite::tungstenite::Message;

fn assert_open_fields(open: &serde_json::Value, upgrades: serde_json::Value) {
    let keys: Vec<_> = open.as_object().expect("object").keys().cloned().collect();
    assert_eq!(keys.len(), 5, "{open}");
    assert!(open["sid"].is_string());
    assert_eq!(open["upgrades"], upgrades);
    assert_eq!(open["pingInterval"], 300);
    assert_eq!(open["pingTimeout"], 200);
    assert_eq!(open["maxPayload"], 1_000_000);
}

#[tokio::test]
async fn polling_handshake_has_all_fields() {
    let (_, open) = open_polling().await;
    assert_open_fields(&open, json!(["websocket"]));
}

#[tokio::test]
async fn websocket_handshake_has_all_fields() {
    let (_, open) = ws_open().await;
    assert_open_fields(&open, json!([]));
}

#[tokio::test]
async fn bad_queries_and_methods_are_rejected() {
    for query in [
        "transport=polling",
        "EIO=abc&transport=polling",
        "EIO=3&transport=polling",
        "EIO=4",
        "EIO=4&transport=abc",
    ] {
        assert_eq!(get(query).await.0, 400, "{query}");
    }
    assert_eq!(post("EIO=4&transport=polling", "").await.0, 400);
    let put = reqwest::Client::new()
        .put(http_url("EIO=4&transport=polling"))
        .send()
        .await
        .expect("PUT");
    assert_eq!(put.status().as_u16(), 400);
    for query in [
        "transport=websocket",
        "EIO=abc&transport=websocket",
        "EIO=4&transport=abc",
    ] {
        assert!(ws_connect(query).await.is_err(), "{query}");
    }
}

#[tokio::test]
async fn unknown_sid_is_400_with_engineio_error() {
    for response in [
        get(&sid_query("nope")).await,
        post(&sid_query("nope"), "40").await,
    ] {
        assert_eq!(response.0, 400);
        let body: serde_json::Value = serde_json::from_str(&response.1).expect("JSON");
        assert_eq!(body, json!({"code": 1, "message": "Session ID unknown"}));
    }
    assert!(ws_connect("EIO=4&transport=websocket&sid=nope")
        .await
        .is_err());
}

#[tokio::test]
async fn polling_heartbeat_pings_and_accepts_pongs() {
    let (sid, _) = open_polling().await;
    // Join a namespace so the 1 s connect timeout cannot interfere when
    // the machine is slow.
    assert_eq!(post(&sid_query(&sid), "40").await.0, 200);
    assert!(get(&sid_query(&sid)).await.1.starts_with("40"));
    for _ in 0..3 {
        assert_eq!(get(&sid_query(&sid)).await, (200, "2".to_owned()));
        assert_eq!(post(&sid_query(&sid), "3").await, (200, "ok".to_owned()));
    }
}

#[tokio::test]
async fn polling_session_closes_on_ping_timeout() {
    let (sid, _) = open_polling().await;
    // Margin for a slow machine: the server's timers may run late too.
    tokio::time::sleep(Duration::from_millis(300 + 200 + 200)).await;
    assert_eq!(get(&sid_query(&sid)).await.0, 400);
}

#[tokio::test]
async fn websocket_heartbeat_pings_and_accepts_pongs() {
    let (mut ws, _) = ws_open().await;
    for _ in 0..3 {
        assert_eq!(recv_raw_text(&mut ws).await, "2");
        send(&mut ws, "3").await;
    }
}

#[tokio::test]
async fn websocket_closes_on_ping_timeout() {
    let (mut ws, _) = ws_open().await;
    assert_eq!(recv_raw_text(&mut ws).await, "2");
    // No pong: closed 200 ms after the ping (no pings answered meanwhile).
    let closed = async {
        loop {
            match futures_util::StreamExt::next(&mut ws).await {
                Some(Ok(tokio_tungstenite::tungstenite::Message::Close(_)))
                | Some(Err(_))
                | None => return,
                Some(Ok(_)) => {}
            }
        }
    };
    tokio::time::timeout(Duration::from_millis(700), closed)
        .await
        .expect("closed after ping timeout");
}

#[tokio::test]
async fn polling_close_answers_pending_poll_then_forgets_sid() {
    let (sid, _) = open_polling().await;
    let query = sid_query(&sid);
    let poll = tokio::spawn({
        let query = query.clone();
        async move { get(&query).await }
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(post(&query, "1").await.0, 200);
    assert_eq!(poll.await.expect("poll task"), (200, "6".to_owned()));
    assert_eq!(get(&query).await.0, 400);
}

#[tokio::test]
async fn websocket_close_packet_closes() {
    let (mut ws, _) = ws_open().await;
    send(&mut ws, "1").await;
    expect_closed(&mut ws, PATIENCE).await;
}

#[tokio::test]
async fn upgrade_from_polling_to_websocket() {
    let (sid, _) = open_polling().await;
    let query = sid_query(&sid);
    // Connect on polling first, as default clients do.
    assert_eq!(post(&query, "40").await.0, 200);
    let (status, body) = get(&query).await;
    assert_eq!(status, 200);
    assert!(body.starts_with("40{\"sid\":"), "{body}");
    assert!(body.ends_with("\x1e42[\"auth\",{}]"), "{body}");

    // A poll waiting when the probe succeeds is answered with a noop.
    let pending = tokio::spawn({
        let query = query.clone();
        async move { get(&query).await }
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    let mut ws = ws_connect(&format!("EIO=4&transport=websocket&sid={sid}"))
        .await
        .expect("upgrade websocket");
    send(&mut ws, "2probe").await;
    assert_eq!(recv_raw_text(&mut ws).await, "3probe");
    assert_eq!(pending.await.expect("poll task"), (200, "6".to_owned()));
    send(&mut ws, "5").await;

    // The session now lives on the WebSocket only.
    send(&mut ws, r#"42["message","over ws"]"#).await;
    assert_eq!(recv_text(&mut ws).await, r#"42["message-back","over ws"]"#);
    assert_eq!(get(&query).await.0, 400);
    // Another WebSocket with the sid is accepted and closed at once.
    expect_closed_at_once(&format!("EIO=4&transport=websocket&sid={sid}"), "after").await;
    // Heartbeat continues on the WebSocket.
    assert_eq!(recv_raw_text(&mut ws).await, "2");
    send(&mut ws, "3").await;
}

#[tokio::test]
async fn polls_after_upgrade_are_rejected_immediately() {
    let (sid, _) = open_polling().await;
    let mut ws = ws_connect(&format!("EIO=4&transport=websocket&sid={sid}"))
        .await
        .expect("upgrade websocket");
    send(&mut ws, "2probe").await;
    send(&mut ws, "5").await;
    assert_eq!(recv_raw_text(&mut ws).await, "3probe");
    assert_eq!(get(&sid_query(&sid)).await.0, 400);
}

#[tokio::test]
async fn polling_carries_binary_as_base64() {
    let (sid, _) = open_polling().await;
    let query = sid_query(&sid);
    assert_eq!(post(&query, "40").await.0, 200);
    get(&query).await;
    let body = "451-[\"message\",{\"_placeholder\":true,\"num\":0}]\x1ebAQID";
    assert_eq!(post(&query, body).await, (200, "ok".to_owned()));
    let (_, got) = get(&query).await;
    // A heartbeat ping may share the payload on a loaded machine; it is not part of the echo.
    let packets: Vec<&str> = got.split('\x1e').filter(|p| *p != "2").collect();
    assert_eq!(
        packets,
        [
            "451-[\"message-back\",{\"_placeholder\":true,\"num\":0}]",
            "bAQID"
        ]
    );
}

#[tokio::test]
async fn polling_malformed_payload_closes_that_session_only() {
    let (bad, _) = open_polling().await;
    let (good, _) = open_polling().await;
    assert_eq!(post(&sid_query(&bad), "4abc").await.0, 400);
    assert_eq!(get(&sid_query(&bad)).await.0, 400);
    assert_eq!(post(&sid_query(&good), "40").await.0, 200);
    assert!(get(&sid_query(&good)).await.1.starts_with("40"));
}

#[tokio::test]
async fn websocket_closed_before_upgrading_lets_another_upgrade() {
    let (sid, _) = open_polling().await;
    let query = format!("EIO=4&transport=websocket&sid={sid}");
    let mut first = ws_connect(&query).await.expect("first websocket");
    send(&mut first, "2probe").await;
    assert_eq!(recv_raw_text(&mut first).await, "3probe");
    futures_util::SinkExt::close(&mut first)
        .await
        .expect("close");
    drop(first);
    // The server gives the upgrade back when that socket has ended; until then a second
    // upgrade is refused, at the handshake or by a close right after it (on a loaded
    // machine the first socket's end can still be on its way).
    let started = std::time::Instant::now();
    let mut second = loop {
        match ws_connect(&query).await {
            Ok(mut ws) => {
                let sent = futures_util::SinkExt::send(&mut ws, Message::text("2probe")).await;
                let answer = match sent {
                    Ok(()) => recv_raw(&mut ws).await,
                    Err(_) => None,
                };
                match answer {
                    Some(Message::Text(t)) if t.as_str() == "3probe" => break ws,
                    other => assert!(started.elapsed() < PATIENCE, "still refused: {other:?}"),
                }
            }
            Err(e) => assert!(started.elapsed() < PATIENCE, "still refused: {e}"),
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    send(&mut second, "5").await;
    send(&mut second, "40").await;
    assert!(recv_text(&mut second).await.starts_with("40{\"sid\":"));
    assert_eq!(recv_text(&mut second).await, r#"42["auth",{}]"#);
}
