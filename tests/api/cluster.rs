//! Several nodes over one Redis (`[cluster] redis_url`): a limit allows N in total across
//! the nodes, and while Redis cannot be reached sign-in is refused and reads go on.

use crate::helpers::{assert_error, spawn_app_with, TestApp};
use std::net::TcpListener;

#[path = "../cluster/redis.rs"]
mod redis_server;
pub use redis_server::Redis;

async fn node(redis_url: &str, limit: u32) -> TestApp {
    let url = redis_url.to_owned();
    spawn_app_with(move |s| {
        s.cluster.redis_url = url;
        s.services.identity.rate_limits.handle_check.limit = limit;
    })
    .await
}

#[actix_web::test]
async fn a_limit_allows_its_number_in_total_across_the_nodes() {
    let redis = Redis::start();
    let (a, b, c) = (
        node(&redis.url, 6).await,
        node(&redis.url, 6).await,
        node(&redis.url, 6).await,
    );
    let mut allowed = 0;
    for round in 0..4 {
        for app in [&a, &b, &c] {
            let res = app
                .get(&format!("/users/handle/check?handle=someone{round}"))
                .await;
            match res.status().as_u16() {
                200 => allowed += 1,
                429 => {}
                other => panic!("unexpected {other}"),
            }
        }
    }
    assert_eq!(allowed, 6, "six in total across three nodes, not six each");
    let res = c.get("/users/handle/check?handle=late").await;
    assert_eq!(res.status(), 429);
    assert!(res.headers().contains_key("retry-after"));
}

#[actix_web::test]
async fn without_redis_sign_in_is_refused_and_reads_count_on_the_node() {
    // A port nothing listens on: Redis is down for the whole test.
    let dead = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("redis://127.0.0.1:{}/", l.local_addr().unwrap().port())
    };
    let app = node(&dead, 2).await;
    // Reads go on, counted on this node: its own limit still holds.
    for _ in 0..2 {
        let res = app.get("/users/handle/check?handle=reader").await;
        assert_eq!(res.status(), 200);
    }
    let res = app.get("/users/handle/check?handle=reader").await;
    assert_eq!(res.status(), 429);
    // Sign-in cannot be counted, so it is refused rather than let through unlimited.
    let res = app
        .post(
            "/auth/signin",
            serde_json::json!({"handle": "nobody", "pin": "123456"}),
        )
        .await;
    let body = assert_error(res, 503, "SERVICE_UNAVAILABLE").await;
    assert!(body.to_string().contains("rate limit"), "{body}");
}

#[actix_web::test]
async fn a_chat_message_sent_through_one_node_reaches_a_socket_on_another() {
    use crate::marketplace::{app_with, assert_ok, send, user};
    let redis = Redis::start();
    let url = redis.url.clone();
    let a = app_with(move |s| s.cluster.redis_url = url).await;
    // Node B: the same database and Redis.
    let (url, db) = (redis.url.clone(), a.settings.database.url.clone());
    let b = app_with(move |s| {
        s.cluster.redis_url = url;
        s.database.url = db;
    })
    .await;
    redis.wait_for_servers("switchboard/marketplace", 2).await;

    let (to, to_id) = user(&a).await;
    let (from, _) = user(&a).await;
    let mut on_b = crate::sio::Sio::open(&b.marketplace, serde_json::json!({"token": to}))
        .await
        .expect("connected to node B");
    let body = serde_json::json!({"receiverId": to_id, "message": "across nodes"});
    let res = send(
        &a,
        reqwest::Method::POST,
        "/messages/send",
        &from,
        Some(body),
    )
    .await;
    let m = assert_ok(res, 201).await;
    let e = on_b.next("new_message").await;
    assert_eq!(e["messageId"], m["_id"]);
    assert_eq!(e["message"], "across nodes");
}
