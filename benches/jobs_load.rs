//! Jobs per second the core queue completes with no-op handlers (docs/benchmarks.md,
//! "Advertising (issue 21)"):
//!
//!   jobs_load DB_URL [JOBS] [single|batch]
//!
//! Migrates DB_URL (a scratch database: SQLite `sqlite:///tmp/x.sqlite?mode=rwc` or an empty
//! PostgreSQL one), enqueues JOBS (20,000) jobs of one topic in multi-row INSERTs, then starts
//! one node's worker with the shipped `[jobs]` defaults and times until every row is `done`.
//! `single` registers a plain handler (each job claimed, run and recorded on its own, as the
//! advertising topics are); `batch` a batch handler of 100.
// A load tool: a failed set-up step should stop it loudly, so it may unwrap.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use sea_orm::{ConnectionTrait, Statement};
use std::sync::Arc;
use std::time::{Duration, Instant};
use switchboard::core::clock::SystemClock;
use switchboard::core::config::JobsSettings;
use switchboard::core::jobs::{Done, Jobs, NewJob};
use switchboard_migration::{Migrator, MigratorTrait};

const TOPIC: &str = "bench.noop";

async fn not_done(db: &sea_orm::DatabaseConnection) -> i64 {
    let row = db
        .query_one_raw(Statement::from_string(
            db.get_database_backend(),
            format!(
                "SELECT count(*) AS n FROM core_jobs WHERE topic = '{TOPIC}' AND status <> 'done'"
            ),
        ))
        .await
        .unwrap()
        .unwrap();
    row.try_get::<i64>("", "n").unwrap()
}

#[actix_web::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let url = args
        .get(1)
        .expect("usage: jobs_load DB_URL [JOBS] [single|batch]");
    let n: usize = args.get(2).map_or(20_000, |a| a.parse().unwrap());
    let batch = args.get(3).map(String::as_str) == Some("batch");
    let db = switchboard::core::db::connect(url, 10).await.unwrap();
    Migrator::up(&db, None).await.unwrap();
    db.execute_unprepared(&format!("DELETE FROM core_jobs WHERE topic = '{TOPIC}'"))
        .await
        .unwrap();
    let cfg = JobsSettings::default();
    let jobs = Jobs::new(db.clone(), Arc::new(SystemClock), &cfg, "bench".into());
    if batch {
        jobs.handle_batch(TOPIC, 100, |js| async move {
            js.iter().map(|_| Ok(Done::default())).collect()
        });
    } else {
        jobs.handle(TOPIC, |_| async { Ok(Done::default()) });
    }
    let started = Instant::now();
    for chunk in (0..n).collect::<Vec<_>>().chunks(1000) {
        let new = chunk
            .iter()
            .map(|i| NewJob::new(TOPIC, serde_json::json!({ "i": i })))
            .collect();
        jobs.enqueue_many(&db, new).await.unwrap();
    }
    let enqueued = started.elapsed();
    println!(
        "enqueued {n} in {:.2} s = {:.0}/s",
        enqueued.as_secs_f64(),
        n as f64 / enqueued.as_secs_f64()
    );
    let started = Instant::now();
    jobs.start().await.unwrap();
    // A light poll (one count) every 20 ms: the drain's end is known to within that.
    while not_done(&db).await > 0 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let drained = started.elapsed();
    println!(
        "{} handler: {n} jobs done in {:.2} s = {:.0} jobs/s (concurrency {})",
        if batch { "batch(100)" } else { "single" },
        drained.as_secs_f64(),
        n as f64 / drained.as_secs_f64(),
        cfg.concurrency
    );
    jobs.stop(Duration::from_secs(5)).await;
}
