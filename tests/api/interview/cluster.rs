//! Interview sessions on several nodes: one node owns each session's actor (a lease in the
//! shared database); a command that reaches another node is forwarded to the owner over the
//! cluster bus and answered from there; a session whose lease lapsed is taken over.

use super::support::*;
use crate::cluster::Redis;
use crate::helpers::{body, spawn_app_on, TestApp};
use serde_json::json;
use std::sync::Arc;
use switchboard::core::clock::ManualClock;

/// An interview node over `redis`, on the database of `first` when given.
async fn node(redis: &Redis, clock: &Arc<ManualClock>, first: Option<&TestApp>) -> TestApp {
    let url = redis.url.clone();
    let database = first.map(|a| a.settings.database.url.clone());
    spawn_app_on(clock.clone(), move |s| {
        s.services.identity.enabled = false;
        s.services.messaging.enabled = false;
        fast(s);
        s.cluster.redis_url = url;
        if let Some(db) = database {
            s.database.url = db;
        }
    })
    .await
}

async fn live_actors(app: &TestApp) -> i64 {
    let res = app.client.get(url(app, "/api/v1/health")).send().await;
    body(res.expect("health")).await["active_sessions"]
        .as_i64()
        .expect("active_sessions")
}

#[actix_web::test]
async fn commands_on_another_node_run_on_the_sessions_owner() {
    let redis = Redis::start();
    let clock = ManualClock::new();
    let a = node(&redis, &clock, None).await;
    let b = node(&redis, &clock, Some(&a)).await;
    let s = create(&a, json!({"max_questions": 3})).await;
    start(&a, &s).await;
    assert_eq!(live_actors(&a).await, 1);

    // Answered through B, run by A's actor: B starts none of its own.
    let v = body(answer(&b, &s, GOOD_ANSWER).await).await;
    assert_eq!(v["next_message"]["question_number"], 2, "{v}");
    assert_eq!(v["answer"]["sequence_number"], 3, "{v}");
    assert_eq!(live_actors(&b).await, 0, "the owner's actor answered");

    // A refusal crosses back as the same error it is on the owner.
    let res = post_key(
        &b,
        &format!("/api/v1/sessions/{}/resume", id(&s)),
        json!({}),
    )
    .await;
    assert_eq!(res.status(), 409, "resume of a running session");
    let paused = post_key(&b, &format!("/api/v1/sessions/{}/pause", id(&s)), json!({})).await;
    assert_eq!(paused.status(), 200);
    assert_eq!(body(paused).await["status"], "paused");
    let resumed = post_key(
        &b,
        &format!("/api/v1/sessions/{}/resume", id(&s)),
        json!({}),
    )
    .await;
    assert_eq!(body(resumed).await["status"], "in_progress");
    let v = body(answer(&b, &s, GOOD_ANSWER).await).await;
    assert_eq!(v["next_message"]["question_number"], 3, "{v}");
    assert_eq!(live_actors(&b).await, 0);
    assert_eq!(live_actors(&a).await, 1);
}
