//! Several nodes over one Redis (`[cluster] redis_url`): a limit allows N in total across
//! the nodes, and while Redis cannot be reached sign-in is refused and reads go on; a session
//! ended on one node is refused on every other at its next request, even when Redis was down
//! meanwhile; `/health` reports the database and Redis.

use crate::helpers::{assert_error, phone, spawn_app_with, TestApp};
use crate::marketplace::{app_with, assert_ok, get, send, signup};
use crate::messaging::{assert_err, json_body};
use crate::sio::Sio;
use reqwest::Method;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

#[path = "../cluster/redis.rs"]
mod redis_server;
pub use redis_server::{listens_on, Redis};

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
    // Redis answers at start (a node refuses to start without it), then goes down for the
    // rest of the test.
    let redis = Redis::start();
    let app = node(&redis.url, 2).await;
    drop(redis);
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

/// A marketplace node over `redis`, on the database of `first` when given (a cluster shares
/// one database), else on a fresh one.
async fn market_node(redis_url: &str, first: Option<&TestApp>) -> TestApp {
    let url = redis_url.to_owned();
    let database = first.map(|a| a.settings.database.url.clone());
    app_with(move |s| {
        s.cluster.redis_url = url;
        // Every node's /metrics listener, on a port of its own.
        s.telemetry.metrics_bind = "127.0.0.1:0".into();
        if let Some(db) = database {
            s.database.url = db;
        }
    })
    .await
}

/// Signs up on `node`; answers the access token, in use on `other` (its session cached
/// there) with a socket open there.
async fn in_use_on(node: &TestApp, other: &TestApp) -> (String, Sio) {
    let token = signup(node, &phone(), "secret1").await["token"]
        .as_str()
        .expect("token")
        .to_owned();
    assert_ok(get(other, "/auth/me", Some(&token)).await, 200).await;
    let socket = Sio::open(&other.marketplace, json!({"token": token}))
        .await
        .expect("socket admitted");
    (token, socket)
}

async fn refused_on(node: &TestApp, token: &str) {
    assert_err(
        get(node, "/auth/me", Some(token)).await,
        401,
        "invalid_token",
    )
    .await;
}

#[actix_web::test]
async fn a_logout_on_one_node_is_refused_on_another_at_its_next_request() {
    let redis = Redis::start();
    let a = market_node(&redis.url, None).await;
    let c = market_node(&redis.url, Some(&a)).await;
    let (token, mut socket) = in_use_on(&a, &c).await;
    let (bystander, _) = in_use_on(&a, &c).await;

    assert_ok(
        send(&a, Method::POST, "/auth/logout", &token, None).await,
        200,
    )
    .await;
    // No wait: the logout answered after Redis passed the change on.
    refused_on(&c, &token).await;
    let told = tokio::time::timeout(Duration::from_secs(5), socket.next("session_ended"))
        .await
        .expect("the socket on the other node is told");
    assert_eq!(told["reason"], "logged_out");
    assert_ok(get(&c, "/auth/me", Some(&bystander)).await, 200).await;
}

#[actix_web::test]
async fn the_bus_and_redis_are_watched_through_metrics() {
    use crate::telemetry::{scrape, scraped_until, value};
    let redis = Redis::start();
    let a = market_node(&redis.url, None).await;
    let c = market_node(&redis.url, Some(&a)).await;
    let (token, _socket) = in_use_on(&a, &c).await;
    assert_ok(
        send(&a, Method::POST, "/auth/logout", &token, None).await,
        200,
    )
    .await;
    refused_on(&c, &token).await;
    let on_a = scrape(&a).await;
    assert_eq!(value(&on_a, "switchboard_redis_up", &[]), 1.0);
    assert_eq!(value(&on_a, "switchboard_bus_subscribed", &[]), 1.0);
    let published = [("direction", "published")];
    assert!(value(&on_a, "switchboard_bus_messages_total", &published) >= 1.0);
    let received = [("direction", "received")];
    assert!(
        value(
            &scrape(&c).await,
            "switchboard_bus_messages_total",
            &received
        ) >= 1.0
    );

    // Redis goes away: both gauges fall to 0 on this node's next scrapes.
    drop(redis);
    scraped_until(&a, "switchboard_redis_up", &[], |v| v == 0.0).await;
    scraped_until(&a, "switchboard_bus_subscribed", &[], |v| v == 0.0).await;
}

#[actix_web::test]
async fn a_node_that_may_have_missed_a_logout_while_redis_was_down_forgets_its_cache() {
    let redis = Redis::start();
    let a = market_node(&redis.url, None).await;
    let c = market_node(&redis.url, Some(&a)).await;
    let (token, _socket) = in_use_on(&a, &c).await;

    let port = redis.port;
    drop(redis);
    // Logged out while nobody could be told; node C still holds the session as live.
    assert_ok(
        send(&a, Method::POST, "/auth/logout", &token, None).await,
        200,
    )
    .await;
    let _redis = Redis::start_on(port);
    // Once C's bus is back it drops what it cached, so the database's answer counts.
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let res = get(&c, "/auth/me", Some(&token)).await;
        if res.status() == 401 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "still {} on node C",
            res.status()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn health(base: &str) -> (u16, Value) {
    let res = reqwest::get(format!("{base}/health"))
        .await
        .expect("health");
    (res.status().as_u16(), json_body(res).await)
}

#[actix_web::test]
async fn health_reports_the_database_and_redis_on_every_service() {
    let redis = Redis::start();
    let url = redis.url.clone();
    let app = spawn_app_with(move |s| {
        s.cluster.redis_url = url;
        s.cluster.node_id = "node-7".into();
    })
    .await;
    let bases = [
        &app.identity,
        &app.interview,
        &app.messaging,
        &app.marketplace,
        &app.advertising,
    ];
    for base in bases {
        let (status, v) = health(base).await;
        assert_eq!(status, 200, "{base}: {v}");
        assert_eq!(v["status"], "healthy", "{v}");
        assert_eq!(v["node"], "node-7", "{v}");
        assert_eq!(v["checks"]["database"]["status"], "up", "{v}");
        assert_eq!(v["checks"]["redis"]["status"], "up", "{v}");
        assert!(v["checks"]["redis"]["latency_ms"].is_u64(), "{v}");
    }
    // Redis down: the node still serves, and says so.
    drop(redis);
    for base in bases {
        let (status, v) = health(base).await;
        assert_eq!(status, 200, "{base}: {v}");
        assert_eq!(v["checks"]["redis"]["status"], "down", "{v}");
        assert_eq!(v["checks"]["database"]["status"], "up", "{v}");
    }
    let res = reqwest::get(format!("{}/api/v1/health", app.interview))
        .await
        .expect("api health");
    assert_eq!(res.status(), 200);
    let v = json_body(res).await;
    assert_eq!(v["checks"]["redis"]["status"], "down", "{v}");
    assert!(v["active_sessions"].is_u64(), "{v}");

    // A single node has no Redis to check.
    let single = spawn_app_with(|_| {}).await;
    let (status, v) = health(&single.identity).await;
    assert_eq!(status, 200);
    assert_eq!(v["checks"]["redis"]["status"], "not_configured", "{v}");
    assert!(v["checks"]["redis"].get("latency_ms").is_none(), "{v}");
}

/// The texts of the caller's conversation with `other`, newest first, read through `node`.
async fn texts_with(node: &TestApp, token: &str, other: &str) -> Vec<String> {
    let path = format!("/messages/conversations/{other}?limit=10");
    let v = json_body(get(node, &path, Some(token)).await).await;
    v["data"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| m["message"].as_str().unwrap_or_default().to_owned())
        .collect()
}

async fn conversations_running(node: &TestApp) -> u64 {
    let res = reqwest::get(format!("{}/health", node.marketplace))
        .await
        .expect("health");
    json_body(res).await["details"]["conversations_running"]
        .as_u64()
        .expect("conversations_running")
}

#[actix_web::test]
async fn a_conversation_runs_on_one_node_and_messages_through_another_reach_it() {
    let redis = Redis::start();
    let a = market_node(&redis.url, None).await;
    let b = market_node(&redis.url, Some(&a)).await;
    let (ann, _) = crate::marketplace::user(&a).await;
    let (_, bob_id) = crate::marketplace::user(&a).await;
    let say = |text: &str| Some(json!({"receiverId": bob_id, "message": text}));
    let res = send(
        &a,
        Method::POST,
        "/messages/send",
        &ann,
        say("first, through A"),
    )
    .await;
    assert_ok(res, 201).await;
    assert_eq!(conversations_running(&a).await, 1);
    // Through B, written by A's actor: the sequence goes on and B runs no actor of its own.
    for text in ["second, through B", "third, through B"] {
        let res = send(&b, Method::POST, "/messages/send", &ann, say(text)).await;
        assert_ok(res, 201).await;
    }
    assert_eq!(conversations_running(&b).await, 0);
    assert_eq!(
        texts_with(&b, &ann, &bob_id).await,
        ["third, through B", "second, through B", "first, through A"]
    );
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

/// Who holds the lease of every actor of `kind` now.
pub async fn owners(node: &TestApp, kind: &str) -> Vec<String> {
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
    use switchboard_entities::core::actor_lease::{Column, Entity};
    let db = sea_orm::Database::connect(&node.settings.database.url)
        .await
        .expect("database");
    let leases = Entity::find()
        .filter(Column::Kind.eq(kind))
        .all(&db)
        .await
        .expect("leases");
    db.close().await.ok();
    leases.into_iter().map(|l| l.owner).collect()
}

/// Hands every lease of `kind` to `owner` for a day, as if that node had taken them over
/// (a node on no bus: gone from the cluster).
pub async fn hand_leases_to(node: &TestApp, kind: &str, owner: &str) {
    use sea_orm::sea_query::Expr;
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
    use switchboard_entities::core::actor_lease::{Column, Entity};
    let db = sea_orm::Database::connect(&node.settings.database.url)
        .await
        .expect("database");
    let a_day_on = node.now() + chrono::Duration::days(1);
    Entity::update_many()
        .col_expr(Column::Owner, Expr::value(owner))
        .col_expr(Column::ExpiresAt, Expr::value(a_day_on))
        .filter(Column::Kind.eq(kind))
        .exec(&db)
        .await
        .expect("leases handed over");
    db.close().await.ok();
}

const CONVERSATION: &str = "marketplace.conversation";

/// Waits until `done` (10 s at most).
pub async fn until(what: &str, mut done: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done().await {
        assert!(Instant::now() < deadline, "{what}: not within 10 s");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[actix_web::test]
async fn a_conversation_whose_node_left_the_cluster_is_taken_over_at_the_next_message() {
    let redis = Redis::start();
    let node = |first: Option<&TestApp>, id: &str| {
        let (url, id) = (redis.url.clone(), id.to_owned());
        let database = first.map(|a| a.settings.database.url.clone());
        app_with(move |s| {
            s.cluster.redis_url = url;
            s.cluster.node_id = id;
            // Checks what it holds every second.
            s.cluster.lease_secs = 3;
            if let Some(db) = database {
                s.database.url = db;
            }
        })
    };
    let a = node(None, "node-a").await;
    let b = node(Some(&a), "node-b").await;
    let (ann, _) = crate::marketplace::user(&a).await;
    let (_, bob_id) = crate::marketplace::user(&a).await;
    let say = |text: &str| Some(json!({"receiverId": bob_id, "message": text}));
    let res = send(&a, Method::POST, "/messages/send", &ann, say("one")).await;
    assert_ok(res, 201).await;
    assert_eq!(conversations_running(&a).await, 1);
    assert_eq!(owners(&a, CONVERSATION).await, ["node-a"]);

    // A node that is on no bus takes the conversation, as if A had been cut off meanwhile:
    // A retires its actor at its next check.
    hand_leases_to(&a, CONVERSATION, "node-gone").await;
    until("A retires the conversation it lost", async || {
        conversations_running(&a).await == 0
    })
    .await;

    // Its owner is not on the bus: B takes it over at once (no wait for the relay's 10 s
    // timeout, nor for the lease, good for a day) and the message is stored in sequence.
    let started = Instant::now();
    let res = send(&b, Method::POST, "/messages/send", &ann, say("two")).await;
    assert_ok(res, 201).await;
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(owners(&a, CONVERSATION).await, ["node-b"]);
    assert_eq!(conversations_running(&b).await, 1);
    // And A relays to B now.
    let res = send(&a, Method::POST, "/messages/send", &ann, say("three")).await;
    assert_ok(res, 201).await;
    assert_eq!(conversations_running(&a).await, 0);
    assert_eq!(texts_with(&a, &ann, &bob_id).await, ["three", "two", "one"]);
}

/// An advertising node over `redis` on the database of `first` when given, with a ceiling of
/// two codes an hour per calling code.
async fn ads_node(redis_url: &str, first: Option<&TestApp>) -> TestApp {
    let url = redis_url.to_owned();
    let database = first.map(|a| a.settings.database.url.clone());
    crate::advertising::app_with(move |s| {
        s.cluster.redis_url = url;
        s.services
            .advertising
            .rate_limits
            .otp_per_calling_code
            .limit = 2;
        if let Some(db) = database {
            s.database.url = db;
        }
    })
    .await
}

async fn ask(node: &TestApp, phone: &str) -> reqwest::Response {
    let body = json!({"phoneNumber": phone, "countryId": "GB"});
    crate::advertising::post(node, "/auth/request-otp", None, body).await
}

#[actix_web::test]
async fn code_limits_hold_across_the_nodes_and_a_refused_request_gives_back_what_it_took() {
    use crate::advertising::{phone, refused};
    let redis = Redis::start();
    let a = ads_node(&redis.url, None).await;
    let b = ads_node(&redis.url, Some(&a)).await;
    let (x, y, z) = (phone(), phone(), phone());
    assert_eq!(ask(&a, &x).await.status(), 200);
    // The cooldown is the cluster's, not the node's.
    refused(ask(&b, &x).await, 429, "otp_cooldown").await;
    assert_eq!(ask(&b, &y).await.status(), 200);
    // +44 has had its two: refused on either node, and the refusal gives back the cooldown
    // it took, so the other node answers the same and not "wait a minute".
    refused(ask(&a, &z).await, 429, "country_sms_limit").await;
    refused(ask(&b, &z).await, 429, "country_sms_limit").await;
    assert!(a.outbox_for(&z).is_empty());
}
