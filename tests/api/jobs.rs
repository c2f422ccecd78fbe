//! The durable job queue, through its library interface (what services call), the
//! `switchboard jobs` CLI and the database two nodes share: recurring jobs run once per
//! interval across nodes, failures back off and end dead, an operator's retry revives them,
//! a lapsed lease is retaken and a graceful stop loses nothing.

use crate::helpers::{empty_database_url, spawn_app_on, TestApp};
use chrono::Duration;
use sea_orm::{DatabaseConnection, EntityTrait};
use serde_json::json;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use switchboard::core::clock::{Clock, ManualClock};
use switchboard::core::jobs::{Done, JobFailure, JobId, NewJob};
use switchboard::settings::Settings;
use switchboard_entities::core::job;
use tokio::sync::Notify;

/// A node: identity only (the queue is core's), polling often.
fn node(s: &mut Settings) {
    s.services.interview.enabled = false;
    s.services.messaging.enabled = false;
    s.jobs.poll_interval_ms = 20;
}

/// Two nodes on one database and one frozen clock.
async fn two_nodes() -> (Arc<ManualClock>, TestApp, TestApp) {
    let clock = ManualClock::new();
    clock.freeze();
    let a = spawn_app_on(clock.clone(), node).await;
    let url = a.settings.database.url.clone();
    let b = spawn_app_on(clock.clone(), |s| {
        node(s);
        s.database.url = url;
    })
    .await;
    (clock, a, b)
}

async fn db(app: &TestApp) -> DatabaseConnection {
    sea_orm::Database::connect(&app.settings.database.url)
        .await
        .unwrap()
}

async fn row(db: &DatabaseConnection, id: JobId) -> job::Model {
    job::Entity::find_by_id(id.0)
        .one(db)
        .await
        .unwrap()
        .expect("job row")
}

async fn run_due(apps: &[&TestApp]) {
    for app in apps {
        app.jobs.run_due().await.unwrap();
    }
}

/// A handler that counts its runs.
fn counting(
    runs: &Arc<AtomicU32>,
) -> impl Fn(switchboard::core::jobs::Job) -> futures_util::future::Ready<Result<Done, JobFailure>>
       + Send
       + Sync
       + 'static {
    let runs = runs.clone();
    move |_| {
        runs.fetch_add(1, Ordering::SeqCst);
        futures_util::future::ready(Ok(Done::default()))
    }
}

#[actix_web::test]
async fn a_recurring_job_runs_once_per_interval_across_two_nodes() {
    let (clock, a, b) = two_nodes().await;
    let runs = Arc::new(AtomicU32::new(0));
    for node in [&a, &b] {
        node.jobs.every(
            "test.tick",
            std::time::Duration::from_secs(60),
            counting(&runs),
        );
    }
    // The row is created once, due one interval later.
    run_due(&[&a, &b]).await;
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    for n in 1..=4 {
        clock.advance(Duration::seconds(59));
        run_due(&[&a, &b]).await;
        assert_eq!(
            runs.load(Ordering::SeqCst),
            n - 1,
            "not before the interval"
        );
        clock.advance(Duration::seconds(1));
        run_due(&[&a, &b]).await;
        assert_eq!(
            runs.load(Ordering::SeqCst),
            n,
            "once per interval, not once per node"
        );
    }
    let db = db(&a).await;
    let rows = switchboard::core::jobs::list(
        &db,
        &switchboard::core::jobs::ListFilter {
            topic: Some("test.tick".into()),
            status: None,
            limit: 10,
        },
    )
    .await
    .unwrap();
    assert_eq!(rows.len(), 1, "one row for the cluster");
    assert_eq!(rows[0].run_at, clock.now() + Duration::seconds(60));
}

async fn cli(app: &TestApp, args: &[&str]) -> std::process::Output {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["--config", "/nonexistent.toml", "jobs"])
        .args(args)
        .env("SWITCHBOARD__DATABASE__URL", &app.settings.database.url)
        .env("RUST_LOG", "error")
        .output()
        .await
        .expect("run the CLI")
}

#[actix_web::test]
async fn a_failing_job_backs_off_dies_and_is_revived_by_the_cli() {
    let clock = ManualClock::new();
    clock.freeze();
    let app = spawn_app_on(clock.clone(), node).await;
    let failing = Arc::new(AtomicBool::new(true));
    let runs = Arc::new(AtomicU32::new(0));
    let (f, r) = (failing.clone(), runs.clone());
    app.jobs.handle("test.flaky", move |job| {
        r.fetch_add(1, Ordering::SeqCst);
        let fail = f.load(Ordering::SeqCst);
        async move {
            assert_eq!(job.payload["order"], 7);
            if fail {
                Err(JobFailure::retry("receiver down"))
            } else {
                Ok(Done::from(1))
            }
        }
    });
    let db = db(&app).await;
    let id = app
        .jobs
        .enqueue(
            &db,
            NewJob::new("test.flaky", json!({"order": 7})).max_attempts(3),
        )
        .await
        .unwrap()
        .expect("enqueued");
    // Backoff: 10 s, then 20 s, each shortened by up to half at random.
    for (failed, base) in [(1, 10), (2, 20)] {
        run_due(&[&app]).await;
        let r = row(&db, id).await;
        assert_eq!((r.status.as_str(), r.attempts), ("queued", failed));
        assert_eq!(r.last_error.as_deref(), Some("receiver down"));
        let wait = r.run_at - clock.now();
        assert!(
            (base / 2..=base).contains(&wait.num_seconds()),
            "retry {failed} after {wait}"
        );
        clock.advance(wait - Duration::milliseconds(1));
        run_due(&[&app]).await;
        assert_eq!(
            runs.load(Ordering::SeqCst),
            failed as u32,
            "not before its time"
        );
        clock.advance(Duration::milliseconds(1));
    }
    run_due(&[&app]).await;
    let r = row(&db, id).await;
    assert_eq!((r.status.as_str(), r.attempts), ("dead", 3));
    clock.advance(Duration::days(1));
    run_due(&[&app]).await;
    assert_eq!(runs.load(Ordering::SeqCst), 3, "a dead job is not run");

    let out = cli(&app, &["list", "--status", "dead", "--topic", "test.flaky"]).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 2, "{table}");
    for column in ["id", "topic", "status", "attempts", "run_at", "last_error"] {
        assert!(lines[0].contains(column), "{table}");
    }
    for cell in [
        id.to_string().as_str(),
        "test.flaky",
        "dead",
        "3/3",
        "receiver down",
    ] {
        assert!(lines[1].contains(cell), "{cell} in {table}");
    }

    failing.store(false, Ordering::SeqCst);
    let out = cli(&app, &["retry", &id.to_string()]).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Due now on the real clock, which is behind the test's moved one.
    run_due(&[&app]).await;
    let r = row(&db, id).await;
    assert_eq!(
        (r.status.as_str(), r.attempts),
        ("done", 1),
        "fresh attempts"
    );
    assert_eq!(runs.load(Ordering::SeqCst), 4);
    // A done job is not retried; an unknown one is not found.
    let out = cli(&app, &["retry", &id.to_string()]).await;
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("done"));
    let out = cli(&app, &["retry", &uuid::Uuid::new_v4().to_string()]).await;
    assert!(!out.status.success());
}

#[actix_web::test]
async fn a_job_whose_node_is_gone_is_retaken_when_its_lease_lapses() {
    let (clock, a, b) = two_nodes().await;
    let started = Arc::new(Notify::new());
    let s = started.clone();
    a.jobs.handle("test.lease", move |_| {
        s.notify_one();
        // Hangs: node a is about to go away mid-run.
        std::future::pending()
    });
    let db = db(&a).await;
    let id = a
        .jobs
        .enqueue(&db, NewJob::new("test.lease", json!({})))
        .await
        .unwrap()
        .unwrap();
    started.notified().await;
    let runs = Arc::new(AtomicU32::new(0));
    b.jobs.handle("test.lease", counting(&runs));
    assert_eq!(b.jobs.run_due().await.unwrap(), 0, "a's lease holds it");
    let held = row(&db, id).await;
    assert_eq!(held.status.as_str(), "running");

    // Node a goes away without finishing: its lease is left to lapse.
    a.jobs.stop(std::time::Duration::ZERO).await;
    assert_eq!(
        b.jobs.run_due().await.unwrap(),
        0,
        "not before the lease lapses"
    );
    clock.advance(Duration::seconds(a.settings.jobs.lease_secs as i64));
    run_due(&[&b]).await;
    let r = row(&db, id).await;
    assert_eq!((r.status.as_str(), r.attempts), ("done", 2));
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_ne!(r.lease_owner, held.lease_owner);
}

#[actix_web::test]
async fn a_graceful_stop_finishes_running_jobs_and_loses_no_queued_one() {
    let (clock, a, b) = two_nodes().await;
    let started = Arc::new(Notify::new());
    let finished = Arc::new(AtomicU32::new(0));
    let (s, f) = (started.clone(), finished.clone());
    a.jobs.handle("test.slow", move |_| {
        s.notify_one();
        let f = f.clone();
        async move {
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            f.fetch_add(1, Ordering::SeqCst);
            Ok(Done::default())
        }
    });
    let db = db(&a).await;
    let enqueue = |job: NewJob| {
        let (a, db) = (&a, &db);
        async move { a.jobs.enqueue(db, job).await.unwrap().unwrap() }
    };
    let running = enqueue(NewJob::new("test.slow", json!({}))).await;
    let later =
        enqueue(NewJob::new("test.slow", json!({})).at(clock.now() + Duration::hours(1))).await;
    started.notified().await;
    a.jobs.stop(std::time::Duration::from_secs(10)).await;
    assert_eq!(
        finished.load(Ordering::SeqCst),
        1,
        "the running job finished"
    );
    assert_eq!(row(&db, running).await.status.as_str(), "done");
    // Enqueued after the stop: written, for another node.
    let after = enqueue(NewJob::new("test.slow", json!({}))).await;
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    for id in [later, after] {
        assert_eq!(row(&db, id).await.status.as_str(), "queued");
    }

    let runs = Arc::new(AtomicU32::new(0));
    b.jobs.handle("test.slow", counting(&runs));
    clock.advance(Duration::hours(1));
    run_due(&[&b]).await;
    for id in [later, after] {
        assert_eq!(row(&db, id).await.status.as_str(), "done");
    }
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

/// An interview completion webhook still pending when the job queue arrives (written by the
/// poller's version) gets its job in the migration and is delivered.
#[actix_web::test]
async fn a_delivery_pending_at_upgrade_is_delivered_by_the_queue() {
    use sea_orm::{ActiveModelTrait, Set};
    use switchboard_entities::interview::webhook_delivery as delivery;
    use switchboard_migration::{Migrator, MigratorTrait};
    use wiremock::{matchers::method, Mock, MockServer, ResponseTemplate};

    let dir = tempfile::tempdir().unwrap();
    let url = empty_database_url(dir.path()).await;
    let conn = switchboard::core::db::connect(&url, 2).await.unwrap();
    let before_jobs = Migrator::migrations()
        .iter()
        .position(|m| m.name() == "m20261125_000001_jobs")
        .expect("the jobs migration");
    Migrator::up(&conn, Some(before_jobs as u32)).await.unwrap();
    let hook = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&hook)
        .await;
    let id = uuid::Uuid::new_v4();
    let then = chrono::Utc::now() - Duration::minutes(5);
    delivery::ActiveModel {
        id: Set(id),
        session_id: Set(uuid::Uuid::new_v4()),
        url: Set(format!("{}/h", hook.uri())),
        body: Set(r#"{"event":"interview.completed"}"#.into()),
        signature: Set(None),
        secret: Set(None),
        status: Set(switchboard_entities::interview::webhook_delivery::DeliveryStatus::Pending),
        attempts: Set(1),
        last_error: Set(Some("status 503".into())),
        last_status: Set(Some(503)),
        created_at: Set(then),
        delivered_at: Set(None),
        next_attempt_at: Set(Some(then)),
    }
    .insert(&conn)
    .await
    .unwrap();
    conn.close().await.ok();

    let app = spawn_app_on(ManualClock::new(), |s| {
        s.database.url = url.clone();
        s.services.identity.enabled = false;
        s.services.messaging.enabled = false;
        s.services.interview.webhook.allow_private_urls = true;
    })
    .await;
    app.jobs.run_due().await.unwrap();
    let db = db(&app).await;
    let row = delivery::Entity::find_by_id(id)
        .one(&db)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((row.status.as_str(), row.attempts), ("delivered", 2));
    let calls = hook.received_requests().await.unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!(
        calls[0].headers["x-webhook-delivery-id"],
        id.to_string().as_str()
    );
}

#[actix_web::test]
async fn a_batch_handler_gets_its_topics_jobs_together_and_each_ends_on_its_own() {
    let clock = ManualClock::new();
    clock.freeze();
    let app = spawn_app_on(clock.clone(), |s| {
        node(s);
        s.jobs.batch_runs = 3;
    })
    .await;
    let batches = Arc::new(std::sync::Mutex::new(Vec::<Vec<i64>>::new()));
    let seen = batches.clone();
    app.jobs.handle_batch("test.batch", 3, move |jobs| {
        let orders: Vec<i64> = jobs
            .iter()
            .map(|j| j.payload["order"].as_i64().unwrap())
            .collect();
        seen.lock().unwrap().push(orders.clone());
        async move {
            // Order 4 fails for now; order 7 gets no result at all (a handler's slip).
            orders
                .iter()
                .filter(|&&o| o != 7)
                .map(|&o| {
                    if o == 4 {
                        Err(JobFailure::retry("order 4 not ready"))
                    } else {
                        Ok(Done::from(1))
                    }
                })
                .collect()
        }
    });
    let runs = Arc::new(AtomicU32::new(0));
    app.jobs.handle("test.plain", counting(&runs));
    let db = db(&app).await;
    let mut ids = Vec::new();
    for order in 1..=7 {
        let at = clock.now() + Duration::milliseconds(order);
        let job = NewJob::new("test.batch", json!({"order": order})).at(at);
        ids.push(app.jobs.enqueue(&db, job).await.unwrap().unwrap());
    }
    app.jobs
        .enqueue(&db, NewJob::new("test.plain", json!({})))
        .await
        .unwrap();
    clock.advance(Duration::seconds(1));
    // All eight fall due at once: this call or the polling worker claims them in one go, and
    // the call returns once every run has ended.
    app.jobs.run_due().await.unwrap();
    let mut got = batches.lock().unwrap().clone();
    got.sort();
    // Oldest first, in runs of at most three.
    assert_eq!(got, vec![vec![1, 2, 3], vec![4, 5, 6], vec![7]]);
    assert_eq!(runs.load(Ordering::SeqCst), 1, "a plain job runs alone");
    for (order, id) in (1..=7).zip(&ids) {
        let r = row(&db, *id).await;
        match order {
            4 => {
                assert_eq!(r.status.as_str(), "queued");
                assert_eq!(r.last_error.as_deref(), Some("order 4 not ready"));
            }
            7 => {
                assert_eq!(r.status.as_str(), "queued");
                assert!(r.last_error.unwrap().contains("no result"));
            }
            _ => assert_eq!(
                (r.status.as_str(), r.attempts),
                ("done", 1),
                "order {order}"
            ),
        }
    }
}

#[actix_web::test]
async fn a_batch_topics_backlog_waits_for_its_runs_without_holding_back_other_topics() {
    let clock = ManualClock::new();
    clock.freeze();
    let app = spawn_app_on(clock.clone(), |s| {
        node(s);
        s.jobs.batch_runs = 1;
    })
    .await;
    let (started, release) = (Arc::new(AtomicU32::new(0)), Arc::new(Notify::new()));
    // Runs going at once, and the most there ever were: sampled by every run, not once.
    let (running, most) = (Arc::new(AtomicU32::new(0)), Arc::new(AtomicU32::new(0)));
    let (s, r) = (started.clone(), release.clone());
    let (now, peak) = (running.clone(), most.clone());
    app.jobs.handle_batch("test.backlog", 2, move |jobs| {
        s.fetch_add(1, Ordering::SeqCst);
        peak.fetch_max(now.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
        let (r, now) = (r.clone(), now.clone());
        async move {
            r.notified().await;
            now.fetch_sub(1, Ordering::SeqCst);
            jobs.iter().map(|_| Ok(Done::from(1))).collect()
        }
    });
    let plain = Arc::new(AtomicU32::new(0));
    app.jobs.handle("test.plain", counting(&plain));
    let db = db(&app).await;
    // More backlog than one claim reads (16 runs × 2).
    let backlog: Vec<NewJob> = (0..40)
        .map(|i| NewJob::new("test.backlog", json!({"i": i})))
        .collect();
    app.jobs.enqueue_many(&db, backlog).await.unwrap();
    app.jobs
        .enqueue(&db, NewJob::new("test.plain", json!({})))
        .await
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while plain.load(Ordering::SeqCst) == 0 {
        assert!(std::time::Instant::now() < deadline, "the plain job waited");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    // While the first run is held, no second one starts (sampled over a while).
    for _ in 0..10 {
        assert_eq!(started.load(Ordering::SeqCst), 1, "one batch run at a time");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    // Each released run lets the next one start, until the backlog is done.
    while started.load(Ordering::SeqCst) < 20 {
        assert!(std::time::Instant::now() < deadline, "the backlog stalled");
        release.notify_one();
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    release.notify_one();
    let done = |db: DatabaseConnection| async move {
        job::Entity::find()
            .all(&db)
            .await
            .unwrap()
            .iter()
            .filter(|j| j.topic == "test.backlog" && j.status == job::JobStatus::Done)
            .count()
    };
    while done(db.clone()).await < 40 {
        assert!(std::time::Instant::now() < deadline, "the backlog stalled");
        release.notify_one();
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    assert_eq!(
        most.load(Ordering::SeqCst),
        1,
        "batch runs at once, at most"
    );
}
