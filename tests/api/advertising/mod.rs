//! Advertising platform: posters, places, ads, subscriptions, screenshots, money, support.

pub mod admin_accounts;
pub mod admin_finance;
pub mod admin_insights;
pub mod admin_moderation;
pub mod admin_users;
mod ads;
pub mod advertisers;
pub mod campaigns;
mod codes;
pub mod earning;
mod edits;
mod money;
pub mod payments;
mod places;
mod posters;
mod proofs;
mod refunds;
mod signin_guard;
mod sources;
mod staff_media;
mod support;

use crate::helpers::{spawn_app_with, TestApp};
use reqwest::{Method, RequestBuilder, Response};
use serde_json::{json, Value};
use switchboard::settings::Settings;

/// Only the advertising platform runs; its general and sign-in limits are out of the way
/// unless a test sets them.
pub async fn app_with(tweak: impl FnOnce(&mut Settings)) -> TestApp {
    spawn_app_with(|s| {
        advertising_only(s);
        tweak(s);
    })
    .await
}

fn advertising_only(s: &mut Settings) {
    s.services.identity.enabled = false;
    s.services.interview.enabled = false;
    s.services.messaging.enabled = false;
    s.services.marketplace.enabled = false;
    let l = &mut s.services.advertising.rate_limits;
    l.general.limit = 100_000;
    l.auth.limit = 100_000;
    l.otp_per_sender.limit = 100_000;
    l.otp_per_phone.limit = 100_000;
    l.uploads.limit = 100_000;
}

/// Another node of `first`'s deployment: the same database, clock and outbox.
pub async fn node_beside(first: &TestApp, tweak: impl FnOnce(&mut Settings)) -> TestApp {
    let (url, outbox) = (
        first.settings.database.url.clone(),
        first.settings.outbox.path.clone(),
    );
    crate::helpers::spawn_app_on(first.clock.clone(), |s| {
        advertising_only(s);
        s.database.url = url;
        s.outbox.path = outbox;
        tweak(s);
    })
    .await
}

pub async fn app() -> TestApp {
    app_with(|_| {}).await
}

pub fn req(app: &TestApp, method: Method, path: &str, token: Option<&str>) -> RequestBuilder {
    let r = app
        .client
        .request(method, format!("{}{}", app.advertising, path));
    match token {
        Some(t) => r.bearer_auth(t),
        None => r,
    }
}

pub async fn call(
    app: &TestApp,
    method: Method,
    path: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> Response {
    let mut r = req(app, method, path, token);
    if let Some(b) = body {
        r = r.json(&b);
    }
    r.send().await.expect("request")
}

pub async fn post(app: &TestApp, path: &str, token: Option<&str>, body: Value) -> Response {
    call(app, Method::POST, path, token, Some(body)).await
}

pub async fn get(app: &TestApp, path: &str, token: Option<&str>) -> Response {
    call(app, Method::GET, path, token, None).await
}

/// Asserts a 200 `{data}` body; answers `data`.
pub async fn data(res: Response) -> Value {
    let status = res.status().as_u16();
    let body: Value = res.json().await.expect("a JSON body");
    assert_eq!(status, 200, "{body}");
    assert!(body.get("data").is_some(), "{body}");
    body["data"].clone()
}

/// Asserts the error envelope `{error, code}` with `status` and `code`; answers the body.
pub async fn refused(res: Response, status: u16, code: &str) -> Value {
    let got = res.status().as_u16();
    let body: Value = res.json().await.expect("a JSON error body");
    assert_eq!(got, status, "{body}");
    assert_eq!(body["code"], code, "{body}");
    assert!(
        body["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{body}"
    );
    body
}

/// A fresh UK mobile number.
pub fn phone() -> String {
    format!("+4477009{:05}", rand_digits())
}

fn rand_digits() -> u32 {
    uuid::Uuid::new_v4().as_u128() as u32 % 100_000
}

/// Texts a sign-in code to `phone` (in GB); answers it.
pub async fn send_code(app: &TestApp, phone: &str) -> String {
    let sent = post(
        app,
        "/auth/request-otp",
        None,
        json!({"phoneNumber": phone, "countryId": "GB"}),
    )
    .await;
    data(sent).await;
    app.last_code(phone)
}

/// Signs `phone` in with the code it was texted; answers (token, user).
pub async fn sign_in(app: &TestApp, phone: &str) -> (String, Value) {
    let code = send_code(app, phone).await;
    let d = data(
        post(
            app,
            "/auth/verify-otp",
            None,
            json!({"phoneNumber": phone, "code": code}),
        )
        .await,
    )
    .await;
    (
        d["token"].as_str().expect("a token").to_owned(),
        d["user"].clone(),
    )
}

/// A signed-in poster's token.
pub async fn poster(app: &TestApp) -> String {
    sign_in(app, &phone()).await.0
}

/// Runs `switchboard admin <command>` against the app's database; answers the value of the
/// printed `<printed>: ` line, or the error output.
pub fn run_cli(app: &TestApp, command: &[&str], printed: &str) -> Result<String, String> {
    // SQLite answers "database is locked" at once (no busy wait) when a read transaction
    // cannot become a write one while the server writes; the command did nothing: again.
    for _ in 0..20 {
        match run_cli_once(app, command, printed) {
            Err(e) if e.contains("database is locked") => {
                std::thread::sleep(std::time::Duration::from_millis(300));
            }
            done => return done,
        }
    }
    run_cli_once(app, command, printed)
}

fn run_cli_once(app: &TestApp, command: &[&str], printed: &str) -> Result<String, String> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["--config", "/nonexistent.toml", "admin"])
        .args(command)
        .env("SWITCHBOARD__DATABASE__URL", &app.settings.database.url)
        .env("SWITCHBOARD__OUTBOX__PATH", &app.settings.outbox.path)
        .env(
            "SWITCHBOARD__PROVIDERS__STORAGE__PATH",
            &app.settings.providers.storage.path,
        )
        .env("RUST_LOG", "error")
        .output()
        .expect("run the CLI");
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let prefix = format!("{printed}: ");
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix(prefix.as_str()))
        .expect("the id printed")
        .to_owned())
}

/// Runs `switchboard admin create-ad` against the app's database; answers the ad's id.
pub fn create_ad(app: &TestApp, args: &[&str]) -> Result<String, String> {
    let command: Vec<&str> = std::iter::once("create-ad")
        .chain(args.iter().copied())
        .collect();
    run_cli(app, &command, "ad_id")
}

/// An approved ad in `country` paying `payout` dollars from `budget`.
pub fn ad(app: &TestApp, title: &str, country: &str, payout: &str, budget: &str) -> String {
    create_ad(
        app,
        &[
            "--title",
            title,
            "--country",
            country,
            "--video",
            "https://videos.example.com/ad.mp4",
            "--payout-usd",
            payout,
            "--budget-usd",
            budget,
            "--category",
            "Technology",
        ],
    )
    .expect("ad created")
}

/// The ledger's invariant, read from the database: every transaction's entries sum to zero,
/// every balance equals the sum of its account's entries, and no guarded account (a
/// poster's, an ad's, a dispute's hold) is below zero.
pub async fn assert_ledger_balanced(app: &TestApp) {
    use sea_orm::EntityTrait;
    use std::collections::HashMap;
    use switchboard_entities::advertising::{balance, ledger_entry};
    let db = sea_orm::Database::connect(&app.settings.database.url)
        .await
        .unwrap();
    let entries = ledger_entry::Entity::find().all(&db).await.unwrap();
    let mut by_tx: HashMap<uuid::Uuid, i64> = HashMap::new();
    let mut by_account: HashMap<String, i64> = HashMap::new();
    for e in &entries {
        *by_tx.entry(e.transaction_id).or_default() += e.amount_cents;
        *by_account.entry(e.account.clone()).or_default() += e.amount_cents;
    }
    for (tx, sum) in &by_tx {
        assert_eq!(*sum, 0, "transaction {tx}'s legs sum to {sum}");
    }
    let balances = balance::Entity::find().all(&db).await.unwrap();
    for b in &balances {
        let entries = by_account.get(&b.account).copied().unwrap_or(0);
        assert_eq!(
            b.cents, entries,
            "balance of {} against its entries",
            b.account
        );
        let outside = b.account.starts_with("external:") || b.account.ends_with(":owed");
        assert!(
            outside || b.cents >= 0,
            "{} is below zero: {}",
            b.account,
            b.cents
        );
    }
    for account in by_account.keys() {
        assert!(
            balances.iter().any(|b| &b.account == account),
            "entries of {account} without a balance"
        );
    }
}
