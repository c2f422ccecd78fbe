//! `switchboard admin create-marketplace-admin`.

use super::*;
use crate::helpers::{fresh_database_url, phone};

fn create_admin(url: &str, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args([
            "--config",
            "/nonexistent.toml",
            "admin",
            "create-marketplace-admin",
        ])
        .args(args)
        .env("SWITCHBOARD__DATABASE__URL", url)
        .env("RUST_LOG", "error")
        .output()
        .expect("run the CLI")
}

fn user_id(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("user_id: "))
        .expect("user id printed")
        .to_owned()
}

#[actix_web::test]
async fn the_cli_creates_one_admin_per_phone_who_can_log_in() {
    let dir = tempfile::tempdir().unwrap();
    let url = fresh_database_url(dir.path()).await;
    let p = phone();
    let first = user_id(&create_admin(
        &url,
        &[
            "--phone",
            &p,
            "--password",
            "admin-secret",
            "--name",
            "Root",
        ],
    ));
    let again = user_id(&create_admin(
        &url,
        &["--phone", &p, "--password", "admin-secret"],
    ));
    assert_eq!(first, again, "idempotent for the same phone");
    let bad = create_admin(&url, &["--phone", "12345", "--password", "admin-secret"]);
    assert!(!bad.status.success());
    let short = create_admin(&url, &["--phone", &phone(), "--password", "123"]);
    assert!(!short.status.success());

    let app = app_with(|s| s.database.url = url.clone()).await;
    let res = post(
        &app,
        "/auth/login",
        json!({"phone": p, "password": "admin-secret"}),
    )
    .await;
    let auth = assert_ok(res, 200).await;
    assert_eq!(auth["user"]["_id"], first.as_str());
    assert_eq!(auth["user"]["role"], "admin");
    assert_eq!(auth["user"]["isPhoneVerified"], true);
    assert_eq!(auth["user"]["name"], "Root");
}

/// `switchboard admin` lists every service's operator commands (each from its `cli.rs`),
/// and an unknown or missing command is a usage error, not a run against the database.
#[test]
fn admin_lists_each_services_commands_and_refuses_unknown_ones() {
    let admin = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .args(["--config", "/nonexistent.toml", "admin"])
            .args(args)
            .env(
                "SWITCHBOARD__DATABASE__URL",
                "sqlite:///nonexistent/dir/db.sqlite",
            )
            .output()
            .expect("run the CLI")
    };
    let help = admin(&["--help"]);
    assert!(help.status.success());
    let text = String::from_utf8_lossy(&help.stdout);
    for command in [
        "create-workspace",
        "add-credits",
        "create-marketplace-admin",
        "create-ad",
        "create-ads-admin",
    ] {
        assert!(text.contains(command), "{command} in\n{text}");
    }
    for args in [&["nope"][..], &[]] {
        let out = admin(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("Usage: switchboard admin"));
    }
}
