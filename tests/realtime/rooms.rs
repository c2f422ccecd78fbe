//! The application API through the `/chat` test namespace: CONNECT auth,
//! per-socket data, rooms, presence, server-side disconnect.

use std::time::Duration;

use serde_json::json;
use switchboard::realtime::DisconnectReason;

use crate::support::*;

#[tokio::test]
async fn on_connect_error_becomes_connect_error_packet() {
    for packet in [r#"40/chat,{"token":"bad"}"#, "40/chat,"] {
        let (mut ws, _) = ws_open().await;
        send(&mut ws, packet).await;
        assert_eq!(
            recv_text(&mut ws).await,
            r#"44/chat,{"message":"unauthorized"}"#
        );
    }
}

#[tokio::test]
async fn data_set_on_connect_is_kept() {
    let (mut ws, sid) = chat_connect("user-ann").await;
    assert_eq!(
        chat_call(&mut ws, 1, json!(["whoami"])).await,
        json!(["user-ann"])
    );
    assert_eq!(chat_call(&mut ws, 2, json!(["id"])).await, json!([sid]));
}

#[tokio::test]
async fn rooms_fan_out_and_track_members() {
    let (mut a, _) = chat_connect("user-a").await;
    let (mut b, _) = chat_connect("user-b").await;
    let (mut c, _) = chat_connect("user-c").await;
    for ws in [&mut a, &mut b] {
        assert_eq!(
            chat_call(ws, 1, json!(["join", "r1"])).await,
            json!(["joined"])
        );
    }
    assert_eq!(
        chat_call(&mut c, 1, json!(["members", "r1"])).await,
        json!([2])
    );

    // broadcast_to skips the sender; emit_to_room includes it.
    send(&mut a, r#"42/chat,["say","r1","hi"]"#).await;
    assert_eq!(recv_text(&mut b).await, r#"42/chat,["said","hi"]"#);
    send(&mut a, r#"42/chat,["shout","r1","HI"]"#).await;
    assert_eq!(recv_text(&mut a).await, r#"42/chat,["shouted","HI"]"#);
    assert_eq!(recv_text(&mut b).await, r#"42/chat,["shouted","HI"]"#);
    send(&mut c, r#"42/chat,["announce","r1","news"]"#).await;
    assert_eq!(recv_text(&mut a).await, r#"42/chat,["announced","news"]"#);
    assert_eq!(recv_text(&mut b).await, r#"42/chat,["announced","news"]"#);
    // c is in no room: the next thing it gets is its own ack.
    assert_eq!(
        chat_call(&mut c, 2, json!(["whoami"])).await,
        json!(["user-c"])
    );

    assert_eq!(
        chat_call(&mut b, 2, json!(["leave", "r1"])).await,
        json!(["left"])
    );
    assert_eq!(
        chat_call(&mut c, 3, json!(["members", "r1"])).await,
        json!([1])
    );
    // A closed connection leaves its rooms.
    drop(a);
    let mut members = json!([1]);
    for _ in 0..50 {
        members = chat_call(&mut c, 4, json!(["members", "r1"])).await;
        if members == json!([0]) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(members, json!([0]));
}

#[tokio::test]
async fn server_disconnect_leaves_namespace_but_keeps_connection() {
    let (mut ws, sid) = chat_connect("user-k").await;
    send(&mut ws, "40").await;
    assert!(recv_text(&mut ws).await.starts_with("40{"));
    assert_eq!(recv_text(&mut ws).await, r#"42["auth",{}]"#);
    send(&mut ws, r#"42/chat,["kick"]"#).await;
    assert_eq!(recv_text(&mut ws).await, "41/chat,");
    send(&mut ws, r#"42["message","still open"]"#).await;
    assert_eq!(
        recv_text(&mut ws).await,
        r#"42["message-back","still open"]"#
    );
    assert_eq!(
        disconnect_reason(&sid),
        Some(DisconnectReason::ServerNamespaceDisconnect)
    );
}

#[tokio::test]
async fn server_close_ends_connection() {
    let (mut ws, sid) = chat_connect("user-z").await;
    send(&mut ws, r#"42/chat,["close"]"#).await;
    assert_eq!(recv_text(&mut ws).await, "41/chat,");
    expect_closed(&mut ws, PATIENCE).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(disconnect_reason(&sid), Some(DisconnectReason::ServerClose));
}

#[tokio::test]
async fn client_disconnect_reasons_reach_the_handler() {
    let (mut ws, sid) = chat_connect("user-d").await;
    send(&mut ws, "41/chat,").await;
    let (gone, gone_sid) = chat_connect("user-e").await;
    drop(gone);
    for _ in 0..50 {
        if disconnect_reason(&gone_sid).is_some() && disconnect_reason(&sid).is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        disconnect_reason(&sid),
        Some(DisconnectReason::ClientNamespaceDisconnect)
    );
    assert_eq!(
        disconnect_reason(&gone_sid),
        Some(DisconnectReason::TransportClose)
    );
}
