//! `switchboard backup` and `switchboard restore`, through the real binary: a backup taken
//! while messages are being accepted restores, into fresh places, every message accepted
//! before it began (read back through the API) and the media directory; a target holding
//! data is refused unless `--force`.

use crate::helpers::{empty_database_url, spawn_app_with, TestApp};
use crate::messaging::{test_settings, workspace, MessagingApp};
use std::path::Path;
use std::process::Output;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The binary with the places a test names (the database and the media directory).
fn cli(database_url: &str, media: &Path, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["--config", "/nonexistent.toml"])
        .args(args)
        .env("SWITCHBOARD__DATABASE__URL", database_url)
        .env("SWITCHBOARD__PROVIDERS__STORAGE__PATH", media)
        .env(
            "SWITCHBOARD__SERVICES__MARKETPLACE__SANDBOX__ENABLED",
            "false",
        )
        .env("RUST_LOG", "error")
        .output()
        .expect("run the CLI")
}

fn said(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Accepted messages, each with when its answer came.
type Accepted = Arc<Mutex<Vec<(String, Instant)>>>;

/// Sends messages one after another until `stop`; each accepted one with when its answer came.
fn keep_sending(
    app: &TestApp,
    key: &str,
    stop: Arc<AtomicBool>,
) -> (Accepted, tokio::task::JoinHandle<()>) {
    let accepted = Arc::new(Mutex::new(Vec::new()));
    let (client, url, key, into) = (
        app.client.clone(),
        app.m("/api/v1/messages/send"),
        key.to_owned(),
        accepted.clone(),
    );
    let task = tokio::spawn(async move {
        let mut n = 0u32;
        while !stop.load(Ordering::Relaxed) {
            n += 1;
            let res = client
                .post(&url)
                .header("X-API-Key", &key)
                .json(&crate::messaging::sms(
                    "+14155550100",
                    &format!("backup {n}"),
                ))
                .send()
                .await;
            let Ok(res) = res else { continue };
            if res.status().is_success() {
                let body: serde_json::Value = res.json().await.unwrap_or_default();
                if let Some(id) = body["data"]["message_id"].as_str() {
                    into.lock().unwrap().push((id.to_owned(), Instant::now()));
                }
            }
        }
    });
    (accepted, task)
}

#[actix_web::test]
async fn a_backup_under_writes_restores_every_message_accepted_before_it_and_the_media() {
    let app = spawn_app_with(test_settings).await;
    let ws = workspace(&app, "100000").await;
    let media = Path::new(&app.settings.providers.storage.path).to_owned();
    let video: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    std::fs::create_dir_all(media.join("ads/a1")).unwrap();
    std::fs::write(media.join("ads/a1/source.mp4"), &video).unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let (accepted, load) = keep_sending(&app, &ws.key, stop.clone());
    tokio::time::sleep(Duration::from_millis(800)).await;
    let began = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let to = dir.path().join("backup");
    let db_url = app.settings.database.url.clone();
    let (m, t) = (media.clone(), to.clone());
    let out = tokio::task::spawn_blocking(move || {
        cli(&db_url, &m, &["backup", "--to", &t.display().to_string()])
    })
    .await
    .unwrap();
    assert!(out.status.success(), "{}", said(&out));
    // Writes went on during the backup, and after it.
    tokio::time::sleep(Duration::from_millis(300)).await;
    stop.store(true, Ordering::Relaxed);
    load.await.unwrap();
    let before: Vec<String> = accepted
        .lock()
        .unwrap()
        .iter()
        .filter(|(_, at)| *at < began)
        .map(|(id, _)| id.clone())
        .collect();
    let all = accepted.lock().unwrap().len();
    assert!(
        before.len() >= 5,
        "only {} accepted before the backup",
        before.len()
    );
    assert!(all > before.len(), "nothing was written during the backup");
    // A backup is never written over another.
    let again = cli(
        &app.settings.database.url,
        &media,
        &["backup", "--to", &to.display().to_string()],
    );
    assert!(!again.status.success());
    assert!(said(&again).contains("not empty"), "{}", said(&again));

    // Into fresh places.
    let fresh = tempfile::tempdir().unwrap();
    let target_url = empty_database_url(fresh.path()).await;
    let target_media = fresh.path().join("media");
    let from = to.display().to_string();
    let out = cli(&target_url, &target_media, &["restore", "--from", &from]);
    assert!(out.status.success(), "{}", said(&out));
    assert_eq!(
        std::fs::read(target_media.join("ads/a1/source.mp4")).unwrap(),
        video
    );
    // Restoring over data is refused unless --force.
    let out = cli(&target_url, &target_media, &["restore", "--from", &from]);
    assert!(!out.status.success());
    assert!(said(&out).contains("restore --force"), "{}", said(&out));
    let out = cli(
        &target_url,
        &target_media,
        &["restore", "--from", &from, "--force"],
    );
    assert!(out.status.success(), "{}", said(&out));

    let (url, m) = (target_url.clone(), target_media.display().to_string());
    let restored = spawn_app_with(move |s| {
        test_settings(s);
        s.database.url = url;
        s.providers.storage.path = m;
    })
    .await;
    for id in &before {
        let res = restored
            .get_key(&format!("/api/v1/messages/{id}"), &ws.key)
            .await;
        assert_eq!(res.status(), 200, "message {id} accepted before the backup");
    }
}

#[actix_web::test]
async fn restore_refuses_what_is_not_a_backup_and_a_database_a_server_runs_on() {
    let app = spawn_app_with(test_settings).await;
    let media = Path::new(&app.settings.providers.storage.path).to_owned();
    let dir = tempfile::tempdir().unwrap();
    let out = cli(
        &app.settings.database.url,
        &media,
        &["restore", "--from", &dir.path().display().to_string()],
    );
    assert!(!out.status.success());
    assert!(said(&out).contains("is not a backup"), "{}", said(&out));

    let to = dir.path().join("b");
    let out = cli(
        &app.settings.database.url,
        &media,
        &["backup", "--to", &to.display().to_string()],
    );
    assert!(out.status.success(), "{}", said(&out));
    // The running app's own database: even --force waits for it to stop.
    let out = cli(
        &app.settings.database.url,
        &media,
        &["restore", "--from", &to.display().to_string(), "--force"],
    );
    assert!(!out.status.success());
    assert!(
        said(&out).contains("is running on the target database"),
        "{}",
        said(&out)
    );
}
