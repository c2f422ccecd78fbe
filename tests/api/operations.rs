//! What an operator's machinery sees: the probes of every listener (`/livez`, `/readyz`), and
//! a node id that survives restarts, is never shared by two live processes, and brings the
//! node's own claims back at once.

use crate::helpers::{spawn_app_with, TestApp};
use chrono::Utc;
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, Database, DatabaseConnection, EntityTrait,
    QueryFilter, Set,
};
use serde_json::Value;
use std::process::Command;
use std::time::{Duration, Instant};
use switchboard::settings::Settings;
use switchboard::{Application, Overrides};
use switchboard_entities::core::{job, node};

fn bases(app: &TestApp) -> [&str; 5] {
    [
        &app.identity,
        &app.interview,
        &app.messaging,
        &app.marketplace,
        &app.advertising,
    ]
}

async fn get(url: &str) -> (u16, Value) {
    let res = reqwest::get(url).await.expect(url);
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

#[actix_web::test]
async fn every_listener_answers_livez_and_readyz() {
    let app = spawn_app_with(|_| {}).await;
    for base in bases(&app) {
        let (status, live) = get(&format!("{base}/livez")).await;
        assert_eq!(status, 200, "{base}: {live}");
        assert_eq!(live["status"], "alive", "{live}");
        assert!(
            live["node"]
                .as_str()
                .is_some_and(|n| n.starts_with("node-")),
            "{live}"
        );
        let (status, ready) = get(&format!("{base}/readyz")).await;
        assert_eq!(status, 200, "{base}: {ready}");
        assert_eq!(ready["status"], "ready", "{ready}");
        assert_eq!(ready["checks"]["database"]["status"], "up", "{ready}");
        assert!(
            ready["checks"]["database"]["latency_ms"].is_u64(),
            "{ready}"
        );
        assert_eq!(ready["checks"]["migrations"], "applied", "{ready}");
        assert_eq!(
            ready["checks"]["redis"]["status"], "not_configured",
            "{ready}"
        );
        assert_eq!(ready["failing"], serde_json::json!([]), "{ready}");
        assert_eq!(ready["node"], live["node"], "{ready}");
        // A balancer's HEAD works too; a probe never counts against a rate limit.
        let head = app
            .client
            .head(format!("{base}/readyz"))
            .send()
            .await
            .unwrap();
        assert_eq!(head.status(), 200);
        assert!(head.headers().get("x-ratelimit-limit").is_none());
        // Only reading is offered.
        let post = app
            .client
            .post(format!("{base}/livez"))
            .send()
            .await
            .unwrap();
        assert!(post.status().is_client_error(), "{}", post.status());
    }
}

/// A PostgreSQL server of the test's own, to stop and start under a running node.
struct Postgres {
    bin: String,
    data: tempfile::TempDir,
    port: u16,
}

impl Postgres {
    fn start() -> Self {
        let bin = std::fs::read_dir("/usr/lib/postgresql")
            .expect("PostgreSQL is installed (scripts/setup)")
            .filter_map(|e| e.ok())
            .map(|e| e.path().join("bin").display().to_string())
            .max()
            .expect("a PostgreSQL version");
        let data = tempfile::tempdir().expect("dir");
        as_postgres(data.path());
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        run_as_postgres(
            &format!("{bin}/initdb"),
            &[
                "-D",
                &data.path().join("db").display().to_string(),
                "-U",
                "postgres",
                "--auth=trust",
            ],
        );
        let pg = Self { bin, data, port };
        pg.up();
        pg
    }

    fn db_dir(&self) -> String {
        self.data.path().join("db").display().to_string()
    }

    fn up(&self) {
        run_as_postgres(
            &format!("{}/pg_ctl", self.bin),
            &[
                "-D",
                &self.db_dir(),
                "-l",
                &self.data.path().join("log").display().to_string(),
                "-o",
                &format!(
                    "-p {} -k /tmp -c listen_addresses=127.0.0.1 -c fsync=off",
                    self.port
                ),
                "-w",
                "start",
            ],
        );
    }

    fn down(&self) {
        run_as_postgres(
            &format!("{}/pg_ctl", self.bin),
            &["-D", &self.db_dir(), "-m", "immediate", "-w", "stop"],
        );
    }

    fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let _ = Command::new("runuser")
            .args(["-u", "postgres", "--"])
            .arg(format!("{}/pg_ctl", self.bin))
            .args(["-D", &self.db_dir(), "-m", "immediate", "stop"])
            .output();
    }
}

/// PostgreSQL refuses to run as root: its files belong to the `postgres` user.
fn as_postgres(dir: &std::path::Path) {
    let _ = Command::new("chown")
        .args(["-R", "postgres:postgres"])
        .arg(dir)
        .status();
}

fn run_as_postgres(program: &str, args: &[&str]) {
    let out = Command::new("runuser")
        .args(["-u", "postgres", "--", program])
        .args(args)
        .output()
        .expect(program);
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Polls `url` until its status is `want` (within `within`); the last answer.
async fn until_status(url: &str, want: u16, within: Duration) -> Value {
    let deadline = Instant::now() + within;
    loop {
        let (status, body) = get(url).await;
        if status == want {
            return body;
        }
        assert!(
            Instant::now() < deadline,
            "{url}: {status} {body}, not {want}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[actix_web::test]
async fn readyz_says_503_naming_the_database_while_it_is_stopped_and_livez_stays_200() {
    let pg = Postgres::start();
    let url = pg.url();
    let app = spawn_app_with(move |s| s.database.url = url).await;
    let ready = format!("{}/readyz", app.messaging);
    until_status(&ready, 200, Duration::from_secs(5)).await;

    pg.down();
    let started = Instant::now();
    let body = until_status(&ready, 503, Duration::from_secs(10)).await;
    assert_eq!(body["status"], "not_ready", "{body}");
    assert_eq!(body["checks"]["database"]["status"], "down", "{body}");
    assert!(
        body["failing"]
            .as_array()
            .is_some_and(|f| f.iter().any(|n| n == "database")),
        "{body}"
    );
    // Each answer came within the probe's timeout, not the pool's.
    let (status, _) = get(&ready).await;
    assert_eq!(status, 503);
    assert!(started.elapsed() < Duration::from_secs(10));
    for base in bases(&app) {
        let (status, live) = get(&format!("{base}/livez")).await;
        assert_eq!(status, 200, "{base}: {live}");
    }
    let (status, health) = get(&format!("{}/health", app.identity)).await;
    assert_eq!(status, 503, "{health}");

    pg.up();
    let body = until_status(&ready, 200, Duration::from_secs(30)).await;
    assert_eq!(body["checks"]["database"]["status"], "up", "{body}");
}

async fn livez_node(app: &TestApp) -> String {
    let (_, live) = get(&format!("{}/livez", app.identity)).await;
    live["node"].as_str().expect("node").to_owned()
}

/// Identity only: the node tests need one listener.
fn one_service(s: &mut Settings) {
    s.services.interview.enabled = false;
    s.services.messaging.enabled = false;
    s.services.marketplace.enabled = false;
    s.services.advertising.enabled = false;
}

async fn connect(app_settings: &Settings) -> DatabaseConnection {
    Database::connect(&app_settings.database.url).await.unwrap()
}

#[actix_web::test]
async fn a_restarted_process_is_the_same_node_and_takes_back_at_once_the_jobs_it_was_running() {
    let first = spawn_app_with(one_service).await;
    let id = livez_node(&first).await;
    let settings = first.settings.clone();
    let (dir, ended) = first.shut_down().await;
    ended.expect("a clean stop");

    // As a SIGKILL leaves it: the id still held by the dead process (a fresh heartbeat),
    // and a job it was running under a lease with most of a minute to go.
    let db = connect(&settings).await;
    let now = Utc::now();
    node::Entity::update_many()
        .col_expr(node::Column::Incarnation, Expr::value("dead"))
        .col_expr(node::Column::HeartbeatAt, Expr::value(now))
        .filter(node::Column::Id.eq(&id))
        .exec(&db)
        .await
        .unwrap();
    let job_id = uuid::Uuid::new_v4();
    job::ActiveModel {
        id: Set(job_id),
        topic: Set("ops.test".into()),
        payload: Set(serde_json::json!({})),
        run_at: Set(now - chrono::Duration::seconds(5)),
        attempts: Set(1),
        max_attempts: Set(5),
        status: Set(job::JobStatus::Running),
        lease_owner: Set(Some(id.clone())),
        lease_until: Set(Some(now + chrono::Duration::seconds(55))),
        last_error: Set(None),
        key: Set(None),
        created_at: Set(now - chrono::Duration::seconds(5)),
        updated_at: Set(now - chrono::Duration::seconds(5)),
    }
    .insert(&db)
    .await
    .unwrap();

    // The same data directory: its id file, locked by nobody now, proves the holder dead.
    let started = Instant::now();
    let again = spawn_app_with(move |s| {
        *s = settings;
    })
    .await;
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "waited {:?} for its own id",
        started.elapsed()
    );
    assert_eq!(livez_node(&again).await, id);
    let row = job::Entity::find_by_id(job_id)
        .one(&db)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.status.as_str(), "queued", "{row:?}");
    assert_eq!(row.lease_owner, None, "{row:?}");
    assert!(row.run_at <= again.now(), "due at once: {row:?}");
    drop(dir);
}

#[actix_web::test]
async fn two_live_processes_never_share_a_node_id() {
    // One data directory, two processes: each its own id file.
    let first = spawn_app_with(one_service).await;
    let settings = first.settings.clone();
    let second = spawn_app_with(move |s| {
        *s = settings;
    })
    .await;
    assert_ne!(livez_node(&first).await, livez_node(&second).await);

    // A configured id held by a live process: the second watches the holder's heartbeat,
    // sees it beat, and refuses to start, saying which setting to change.
    let held = spawn_app_with(|s| {
        one_service(s);
        s.cluster.node_id = "node-shared".into();
    })
    .await;
    let mut twin = held.settings.clone();
    twin.server.data_dir = tempfile::tempdir().unwrap().keep().display().to_string();
    let started = Instant::now();
    let refused = Application::build_with(twin, Overrides::default())
        .await
        .err()
        .expect("refused");
    let text = refused.to_string();
    assert!(
        text.contains("[cluster] node_id") && text.contains("node-shared"),
        "{text}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(9),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(livez_node(&held).await, "node-shared");
}

#[actix_web::test]
async fn a_configured_id_whose_process_died_is_taken_once_its_heartbeat_stands_still() {
    let first = spawn_app_with(|s| {
        one_service(s);
        s.cluster.node_id = "node-k".into();
    })
    .await;
    let settings = first.settings.clone();
    let (dir, _) = first.shut_down().await;
    let db = connect(&settings).await;
    // Killed: the row still names it, freshly beaten.
    node::Entity::update_many()
        .col_expr(node::Column::Incarnation, Expr::value("dead"))
        .col_expr(node::Column::HeartbeatAt, Expr::value(Utc::now()))
        .filter(node::Column::Id.eq("node-k"))
        .exec(&db)
        .await
        .unwrap();
    let started = Instant::now();
    let again = spawn_app_with(move |s| *s = settings).await;
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_secs(4) && waited < Duration::from_secs(12),
        "{waited:?}"
    );
    assert_eq!(livez_node(&again).await, "node-k");
    drop(dir);
}

#[actix_web::test]
async fn a_process_whose_id_was_taken_over_stops_serving() {
    let app = spawn_app_with(one_service).await;
    let id = livez_node(&app).await;
    let db = connect(&app.settings).await;
    db.execute_unprepared(&format!(
        "UPDATE core_nodes SET incarnation = 'usurper' WHERE id = '{id}'"
    ))
    .await
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !app.has_stopped() {
        assert!(Instant::now() < deadline, "still serving under a taken id");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(reqwest::get(format!("{}/livez", app.identity))
        .await
        .is_err());
    // The new holder's row is left as it is.
    let row = node::Entity::find_by_id(&id)
        .one(&db)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.incarnation, "usurper");
}

#[test]
fn the_shipped_config_toml_loads() {
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/config.toml"));
    Settings::load(path).expect("config.toml parses with every section");
}
