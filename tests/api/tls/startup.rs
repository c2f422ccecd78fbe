//! The real binary's start-up failures: one sentence on stderr naming the setting to change,
//! exit code 1, no `Debug` dump.

use super::postgres::{SslPostgres, PASSWORD};
use super::ClosedPort;
use std::time::Duration;

/// Runs `switchboard ARGS` with `env` and no config file; (exit code, stderr).
async fn run(args: &[&str], env: &[(&str, String)]) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"));
    cmd.arg("--config")
        .arg(dir.path().join("none.toml"))
        .args(args)
        .env(
            "SWITCHBOARD__DATABASE__URL",
            format!("sqlite://{}/db.sqlite?mode=rwc", dir.path().display()),
        )
        .env("SWITCHBOARD__OUTBOX__PATH", dir.path().join("outbox.jsonl"))
        .env(
            "SWITCHBOARD__PROVIDERS__STORAGE__PATH",
            dir.path().join("media"),
        )
        .env("RUST_LOG", "off")
        .kill_on_drop(true);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = tokio::time::timeout(Duration::from_secs(60), cmd.output())
        .await
        .expect("failed promptly")
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// One line, the sentence; the password never in it.
fn assert_one_sentence(stderr: &str, expected_start: &str, setting: &str) {
    let line = stderr.trim_end();
    assert!(!line.contains('\n'), "more than one line: {stderr}");
    assert!(line.starts_with(expected_start), "{stderr}");
    assert!(line.contains(setting), "names {setting}: {stderr}");
    assert!(line.ends_with('.'), "{stderr}");
    assert!(
        !line.contains(PASSWORD) && !line.contains("wrong-pw"),
        "{stderr}"
    );
    for dump in ["Conn(", "SqlxError", "Custom {", "Os {"] {
        assert!(!line.contains(dump), "Debug dump: {stderr}");
    }
}

fn db(url: String) -> Vec<(&'static str, String)> {
    vec![("SWITCHBOARD__DATABASE__URL", url)]
}

#[actix_web::test]
async fn database_failures_at_start_are_one_sentence_naming_the_url_setting() {
    let pg = SslPostgres::start();
    let wrong = super::TestCa::new("Some Other CA");

    let untrusted = pg.url(
        "127.0.0.1",
        &format!("sslmode=verify-ca&sslrootcert={}", wrong.cert.display()),
    );
    let (code, err) = run(&["migrate"], &db(untrusted)).await;
    assert_eq!(code, Some(1), "{err}");
    assert_one_sentence(
        &err,
        &format!("switchboard: the database server's certificate at 127.0.0.1:{}/postgres is not trusted", pg.port),
        "sslrootcert=",
    );

    let wrong_password = format!(
        "postgres://postgres:wrong-pw@127.0.0.1:{}/postgres?sslmode=prefer",
        pg.port
    );
    let (code, err) = run(&["migrate"], &db(wrong_password)).await;
    assert_eq!(code, Some(1), "{err}");
    assert_one_sentence(
        &err,
        "switchboard: the database at 127.0.0.1:",
        "fix the user name or password in [database] url",
    );

    let closed = ClosedPort::bind();
    let unreachable = format!(
        "postgres://postgres:{PASSWORD}@127.0.0.1:{}/postgres",
        closed.port()
    );
    let (code, err) = run(&["migrate"], &db(unreachable)).await;
    assert_eq!(code, Some(1), "{err}");
    // sqlx keeps retrying until its connect timeout, then says only that.
    assert_one_sentence(
        &err,
        "switchboard: cannot reach the database at 127.0.0.1:",
        "(no connection within 10 s): check the host and port in [database] url",
    );
}

#[actix_web::test]
async fn a_failed_migration_a_dead_redis_and_a_taken_port_are_one_sentence_each() {
    use sea_orm::ConnectionTrait;
    // A database migrated by a later version: a migration this binary does not know.
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}/db.sqlite?mode=rwc", dir.path().display());
    let (code, err) = run(&["migrate"], &db(url.clone())).await;
    assert_eq!(code, Some(0), "{err}");
    let conn = sea_orm::Database::connect(&url).await.unwrap();
    conn.execute_unprepared(
        "INSERT INTO seaql_migrations (version, applied_at) VALUES ('m29990101_000000_from_the_future', 0)",
    )
    .await
    .unwrap();
    conn.close().await.ok();
    let (code, err) = run(&["migrate"], &db(url)).await;
    assert_eq!(code, Some(1), "{err}");
    assert_one_sentence(
        &err,
        "switchboard: migrating the database at SQLite file",
        "[database] url",
    );

    let identity = ["serve", "--only", "identity"];
    let closed = ClosedPort::bind();
    let redis_down = vec![
        (
            "SWITCHBOARD__SERVICES__IDENTITY__BIND",
            "127.0.0.1:0".to_owned(),
        ),
        (
            "SWITCHBOARD__CLUSTER__REDIS_URL",
            format!("redis://127.0.0.1:{}/", closed.port()),
        ),
    ];
    let (code, err) = run(&identity, &redis_down).await;
    assert_eq!(code, Some(1), "{err}");
    assert_one_sentence(
        &err,
        "switchboard: cannot reach Redis (connection refused)",
        "check [cluster] redis_url",
    );

    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let bind = taken.local_addr().unwrap().to_string();
    let (code, err) = run(
        &identity,
        &[("SWITCHBOARD__SERVICES__IDENTITY__BIND", bind.clone())],
    )
    .await;
    assert_eq!(code, Some(1), "{err}");
    assert_one_sentence(
        &err,
        &format!("switchboard: cannot listen on {bind} for identity (the port is taken by another process)"),
        "change [services.identity] bind",
    );
}
