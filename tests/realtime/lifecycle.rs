//! Engine.IO v4 session lifecycle where a request races the session's end,
//! after the protocol's documentation: a poll that meets an upgrade, the
//! heartbeat deadline, and a close packet. Each case repeats so that an
//! ordering that depends on luck shows up as a failure.

use std::time::Duration;

use crate::support::*;

const ROUNDS: usize = 10;

/// "Upgrade": once the client has sent the upgrade packet on the WebSocket,
/// the HTTP long-polling transport of that session is closed, so a GET with
/// the same sid, even one sent right after the upgrade packet, is refused.
#[tokio::test]
async fn poll_racing_an_upgrade_is_refused() {
    let http = KeepAlive::new();
    for round in 0..ROUNDS {
        let sid = http.open_polling().await;
        let mut ws = ws_connect(&format!("EIO=4&transport=websocket&sid={sid}"))
            .await
            .expect("upgrade websocket");
        send(&mut ws, "2probe").await;
        if round % 2 == 0 {
            // As a client does: wait for the probe's answer, then upgrade.
            assert_eq!(recv_raw_text(&mut ws).await, "3probe");
            send(&mut ws, "5").await;
        } else {
            // Upgrade packet right behind the probe.
            send(&mut ws, "5").await;
        }
        let (status, body) = http.get(&sid_query(&sid)).await;
        assert_eq!(
            status, 400,
            "round {round}: poll after upgrade got {body:?}"
        );
    }
}

/// "Heartbeat": a client that has not answered the ping within pingTimeout
/// of it (sent pingInterval after the handshake) is disconnected, so the sid
/// is unknown to any request at pingInterval + pingTimeout.
#[tokio::test]
async fn polling_session_is_gone_at_ping_interval_plus_timeout() {
    // pingInterval 300 ms and pingTimeout 200 ms in the test server.
    let deadline = Duration::from_millis(300 + 200);
    let rounds = (0..ROUNDS).map(|_| async move {
        let http = KeepAlive::new();
        let sid = http.open_polling().await;
        tokio::time::sleep(deadline).await;
        http.get(&sid_query(&sid)).await
    });
    for (status, body) in futures_util::future::join_all(rounds).await {
        assert_eq!(status, 400, "session alive at the deadline: {body:?}");
    }
}

/// "Disconnection": a close packet sent in a POST closes the session; the
/// GET that was pending meanwhile completes with a noop and later requests
/// with that sid are refused.
#[tokio::test]
async fn close_packet_completes_the_racing_poll_then_forgets_sid() {
    let (http, other) = (KeepAlive::new(), KeepAlive::new());
    for round in 0..ROUNDS {
        let sid = http.open_polling().await;
        let query = sid_query(&sid);
        let (poll, push) = tokio::join!(http.get(&query), other.post(&query, "1"));
        assert_eq!(push.0, 200, "round {round}: close POST");
        assert_eq!(poll, (200, "6".to_owned()), "round {round}: pending GET");
        assert_eq!(get(&query).await.0, 400, "round {round}: GET after close");
        assert_eq!(
            post(&query, "40").await.0,
            400,
            "round {round}: POST after close"
        );
    }
}

/// "Upgrade" (the protocol test suite's "should ignore WebSocket connection
/// with same sid after upgrade"): while one WebSocket upgrades a session,
/// and once it has, a second WebSocket with that sid completes its handshake
/// and is closed at once with nothing sent, as on the reference server,
/// whether it comes before the probe, during it, right behind the upgrade
/// packet or after the upgrade; the first one carries the session on. Once
/// the first one is gone the sid is unknown.
#[tokio::test]
async fn second_websocket_with_same_sid_is_closed_at_once() {
    for round in 0..ROUNDS {
        let (sid, _) = open_polling().await;
        let query = format!("EIO=4&transport=websocket&sid={sid}");
        let mut first = ws_connect(&query).await.expect("upgrade websocket");
        expect_closed_at_once(&query, &format!("round {round}, before the probe")).await;
        send(&mut first, "2probe").await;
        assert_eq!(recv_raw_text(&mut first).await, "3probe");
        expect_closed_at_once(&query, &format!("round {round}, during the probe")).await;
        send(&mut first, "5").await;
        expect_closed_at_once(
            &query,
            &format!("round {round}, right behind the upgrade packet"),
        )
        .await;
        send(&mut first, "40").await;
        assert!(recv_text(&mut first).await.starts_with("40{\"sid\":"));
        assert_eq!(recv_text(&mut first).await, r#"42["auth",{}]"#);
        expect_closed_at_once(&query, &format!("round {round}, after the upgrade")).await;
        assert_eq!(get(&sid_query(&sid)).await.0, 400, "round {round}: poll");
        send(&mut first, r#"42["message","still here"]"#).await;
        assert_eq!(
            recv_text(&mut first).await,
            r#"42["message-back","still here"]"#,
            "round {round}"
        );
        first.close(None).await.expect("close");
        expect_unknown(&query, round).await;
    }
}

/// The sid is forgotten (once its WebSocket has gone, on any worker): the
/// handshake is answered 400.
async fn expect_unknown(query: &str, round: usize) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        match ws_connect(query).await {
            Err(tokio_tungstenite::tungstenite::Error::Http(res)) => {
                assert_eq!(res.status().as_u16(), 400, "round {round}");
                return;
            }
            Err(other) => panic!("round {round}: {other}"),
            Ok(_) => assert!(
                tokio::time::Instant::now() < deadline,
                "round {round}: sid still known after its WebSocket closed"
            ),
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
