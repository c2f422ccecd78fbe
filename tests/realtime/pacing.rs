//! Under sustained load each worker coalesces socket I/O
//! (src/realtime/pacing.rs, on in the test server): nothing may be
//! lost, reordered or held back by it.

use crate::support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sustained_load_is_answered_completely_and_in_order() {
    const SOCKETS: usize = 16;
    const PER_SOCKET: usize = 400;
    const IN_FLIGHT: usize = 8;
    let activations = switchboard::realtime::coalescing_activations();
    let clients = (0..SOCKETS).map(|s| {
        tokio::spawn(async move {
            let mut ws = ws_connected().await;
            let event = |n: usize| format!(r#"42["message",{s},{n}]"#);
            for n in 0..IN_FLIGHT {
                send(&mut ws, &event(n)).await;
            }
            for n in 0..PER_SOCKET {
                let want = format!(r#"42["message-back",{s},{n}]"#);
                assert_eq!(recv_text(&mut ws).await, want, "socket {s}");
                if n + IN_FLIGHT < PER_SOCKET {
                    send(&mut ws, &event(n + IN_FLIGHT)).await;
                }
            }
        })
    });
    for client in clients.collect::<Vec<_>>() {
        client.await.expect("every socket got every echo in order");
    }
    assert!(
        switchboard::realtime::coalescing_activations() > activations,
        "the load was paced"
    );

    // Load is over: a lone event on a fresh socket is answered as usual.
    let mut ws = ws_connected().await;
    send(&mut ws, r#"42["message-with-ack"]"#).await;
    send(&mut ws, r#"421["message-with-ack","lone"]"#).await;
    assert_eq!(recv_text(&mut ws).await, r#"431["lone"]"#);
}
