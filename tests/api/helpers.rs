use chrono::Duration;
use reqwest::{Client, Response};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Arc;
use switchboard::core::clock::ManualClock;
use switchboard::settings::Settings;
use switchboard::{Application, Overrides};

#[allow(dead_code)] // every suite uses a different subset of the fields
pub struct TestApp {
    /// Base URL of each service ("" when the service is not running).
    pub identity: String,
    pub interview: String,
    pub messaging: String,
    pub marketplace: String,
    pub advertising: String,
    /// The marketplace sandbox's base URL when it is enabled; empty otherwise.
    pub sandbox: String,
    /// The metrics listener's base URL when `[telemetry] metrics_bind` is set; empty otherwise.
    pub metrics: String,
    pub client: Client,
    pub clock: Arc<ManualClock>,
    pub outbox: PathBuf,
    pub settings: Settings,
    handles: Vec<actix_web::dev::ServerHandle>,
    /// The application's run, which ends once its listeners stopped and it handed back its
    /// node id and leases.
    running: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
    /// The application's job queue, to run due jobs now instead of waiting for its worker.
    pub jobs: switchboard::core::jobs::Jobs,
    _dir: tempfile::TempDir,
}

/// A database URL of its own for one test, a copy of the test process's migrated template:
/// migrating from nothing (every migration, the seeded places) was most of an app's start.
pub async fn fresh_database_url(dir: &std::path::Path) -> String {
    match template().await {
        Template::Postgres { admin, name } => postgres_database(admin, Some(name)).await,
        Template::Sqlite(file) => {
            let copy = dir.join("test.db");
            std::fs::copy(file, &copy).expect("copy the template database");
            sqlite_url(&copy)
        }
    }
}

/// A database URL of its own for one test, with no table in it (a restore target, a schema
/// migrated part of the way).
pub async fn empty_database_url(dir: &std::path::Path) -> String {
    match postgres_admin() {
        Some(admin) => postgres_database(&admin, None).await,
        None => sqlite_url(&dir.join("test.db")),
    }
}

/// The migrated database every test of this process starts from.
enum Template {
    Sqlite(PathBuf),
    Postgres { admin: String, name: String },
}

async fn template() -> &'static Template {
    static TEMPLATE: tokio::sync::OnceCell<Template> = tokio::sync::OnceCell::const_new();
    TEMPLATE
        .get_or_init(|| async {
            use sea_orm::ConnectionTrait;
            use switchboard_migration::{Migrator, MigratorTrait};
            // Kept for the whole run: every SQLite test copies the file in it.
            let dir = tempfile::tempdir().expect("temp dir").keep();
            let url = empty_database_url(&dir).await;
            let conn = switchboard::core::db::connect(&url, 1)
                .await
                .expect("connect to the template database");
            Migrator::up(&conn, None)
                .await
                .expect("migrate the template");
            let template = match postgres_admin() {
                Some(admin) => {
                    let (_, name) = url.rsplit_once('/').expect("database URL has a path");
                    Template::Postgres {
                        name: name.to_owned(),
                        admin,
                    }
                }
                None => {
                    // Everything into the main file, which is all a copy takes.
                    conn.execute_unprepared("PRAGMA wal_checkpoint(TRUNCATE)")
                        .await
                        .expect("checkpoint the template");
                    Template::Sqlite(dir.join("test.db"))
                }
            };
            // PostgreSQL copies a template only while nobody is connected to it.
            conn.close().await.ok();
            template
        })
        .await
}

fn postgres_admin() -> Option<String> {
    std::env::var("TEST_DATABASE_URL")
        .ok()
        .filter(|url| url.starts_with("postgres"))
}

/// A new database on the server of `admin`, copied from `template` when given.
async fn postgres_database(admin: &str, template: Option<&str>) -> String {
    use sea_orm::{ConnectionTrait, Database};
    let name = format!("sb_test_{}", uuid::Uuid::new_v4().simple());
    let conn = Database::connect(admin)
        .await
        .expect("connect to TEST_DATABASE_URL");
    let from = template
        .map(|t| format!(" TEMPLATE {t}"))
        .unwrap_or_default();
    conn.execute_unprepared(&format!("CREATE DATABASE {name}{from}"))
        .await
        .expect("create test database");
    conn.close().await.ok();
    let (base, _) = admin.rsplit_once('/').expect("database URL has a path");
    format!("{base}/{name}")
}

fn sqlite_url(file: &std::path::Path) -> String {
    format!("sqlite://{}?mode=rwc", file.display())
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

pub async fn spawn_app_with(tweak: impl FnOnce(&mut Settings)) -> TestApp {
    spawn_app_on(ManualClock::new(), tweak).await
}

/// An app reading `clock` (several apps may share one, as nodes share time).
pub async fn spawn_app_on(clock: Arc<ManualClock>, tweak: impl FnOnce(&mut Settings)) -> TestApp {
    // `TEST_LOG=1` shows the servers' logs (an internal error's cause, say) under the tests.
    if std::env::var_os("TEST_LOG").is_some() {
        let _ = switchboard::core::telemetry::init(&Default::default());
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let mut settings = Settings::default();
    settings.database.url = fresh_database_url(dir.path()).await;
    settings.database.max_connections = 8;
    // One worker per listener: each worker builds every route again, and a test's requests
    // are few (the suite runs several tests at once on two cores).
    settings.server.workers = 1;
    settings.outbox.path = dir.path().join("outbox.jsonl").display().to_string();
    settings.server.data_dir = dir.path().display().to_string();
    settings.providers.storage.path = dir.path().join("media").display().to_string();
    settings.services.identity.bind = "127.0.0.1:0".into();
    settings.services.interview.bind = "127.0.0.1:0".into();
    settings.services.messaging.bind = "127.0.0.1:0".into();
    settings.services.marketplace.bind = "127.0.0.1:0".into();
    settings.services.advertising.bind = "127.0.0.1:0".into();
    tweak(&mut settings);
    let app = Application::build_with(
        settings.clone(),
        Overrides {
            clock: Some(clock.clone()),
        },
    )
    .await
    .expect("application builds");
    let base = |service: &str| {
        app.address(service)
            .map(|a| format!("http://{a}"))
            .unwrap_or_default()
    };
    let (identity, interview, messaging) = (base("identity"), base("interview"), base("messaging"));
    let (marketplace, advertising) = (base("marketplace"), base("advertising"));
    let sandbox = base(switchboard::services::marketplace::sandbox::NAME);
    let metrics = base(switchboard::core::metrics::listener::NAME);
    let outbox = PathBuf::from(&settings.outbox.path);
    let handles = app.handles();
    let jobs = app.context().jobs.clone();
    let running = Some(actix_web::rt::spawn(app.run_until_stopped()));
    TestApp {
        identity,
        interview,
        messaging,
        marketplace,
        advertising,
        sandbox,
        metrics,
        client: Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .pool_idle_timeout(CLIENT_IDLE)
            .build()
            .expect("client"),
        clock,
        outbox,
        settings,
        handles,
        running,
        jobs,
        _dir: dir,
    }
}

/// A finished test stops its listeners, so their workers drop the app state and its database
/// pool (on PostgreSQL, ~190 apps' pools left open would exhaust the server's connections).
impl Drop for TestApp {
    fn drop(&mut self) {
        for h in &self.handles {
            // The command is sent at once; nobody needs to wait for the workers to finish.
            drop(h.stop(false));
        }
    }
}

impl TestApp {
    /// Stops the application as SIGTERM does and waits until it has handed everything back
    /// (node id, leases); its data directory and database stay, with the caller.
    pub async fn shut_down(mut self) -> (tempfile::TempDir, std::io::Result<()>) {
        for h in &self.handles {
            h.stop(true).await;
        }
        let ended = match self.running.take() {
            Some(run) => run.await.unwrap_or_else(|e| Err(std::io::Error::other(e))),
            None => Ok(()),
        };
        let dir = std::mem::replace(&mut self._dir, tempfile::tempdir().expect("temp dir"));
        (dir, ended)
    }

    /// Whether the application's run has ended (its listeners stopped).
    pub fn has_stopped(&self) -> bool {
        self.running.as_ref().is_none_or(|r| r.is_finished())
    }

    pub fn advance(&self, by: Duration) {
        self.clock.advance(by);
    }

    /// Stops every listener, as a process shutting down would (its in-memory state is
    /// never consulted again: callers talk to another instance).
    pub async fn stop(&self) {
        for h in &self.handles {
            h.stop(false).await;
        }
    }

    /// The server's time (the injected clock).
    pub fn now(&self) -> chrono::DateTime<chrono::Utc> {
        use switchboard::core::clock::Clock;
        self.clock.now()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.identity, path)
    }

    pub async fn post(&self, path: &str, body: Value) -> Response {
        self.client
            .post(self.url(path))
            .json(&body)
            .send()
            .await
            .expect("request")
    }

    pub async fn post_auth(&self, path: &str, token: &str, body: Value) -> Response {
        self.client
            .post(self.url(path))
            .bearer_auth(token)
            .json(&body)
            .send()
            .await
            .expect("request")
    }

    pub async fn get(&self, path: &str) -> Response {
        self.client
            .get(self.url(path))
            .send()
            .await
            .expect("request")
    }

    pub async fn get_auth(&self, path: &str, token: &str) -> Response {
        self.client
            .get(self.url(path))
            .bearer_auth(token)
            .send()
            .await
            .expect("request")
    }

    /// Every outbox line sent to `to`.
    pub fn outbox_for(&self, to: &str) -> Vec<Value> {
        std::fs::read_to_string(&self.outbox)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|v| v["to"] == to)
            .collect()
    }

    /// The six-digit code of the latest SMS to `phone`.
    pub fn last_code(&self, phone: &str) -> String {
        let msgs = self.outbox_for(phone);
        let text = msgs.last().expect("an SMS was sent")["text"]
            .as_str()
            .unwrap()
            .to_owned();
        text.split(|c: char| !c.is_ascii_digit())
            .find(|w| w.len() == 6)
            .expect("a six-digit code")
            .to_owned()
    }

    pub async fn temp_token(&self, phone: &str, purpose: &str) -> String {
        let res = self
            .post(
                "/auth/otp/send",
                json!({"phone": phone, "purpose": purpose}),
            )
            .await;
        assert_eq!(res.status(), 200, "otp send: {}", res.text().await.unwrap());
        let code = self.last_code(phone);
        let res = self
            .post(
                "/auth/otp/verify",
                json!({"phone": phone, "code": code, "purpose": purpose}),
            )
            .await;
        assert_eq!(res.status(), 200);
        body(res).await["data"]["temp_token"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// Signs up a fresh account; returns the whole response data.
    pub async fn signup(&self, phone: &str, handle: &str, pin: &str) -> Value {
        let temp = self.temp_token(phone, "signup").await;
        let res = self
            .post(
                "/auth/signup",
                json!({"temp_token": temp, "pin": pin, "handle": handle, "name": "Test User"}),
            )
            .await;
        assert_eq!(res.status(), 201, "signup");
        body(res).await["data"].clone()
    }
}

pub async fn body(res: Response) -> Value {
    res.json().await.expect("JSON body")
}

/// The seconds `retry` says to wait, asserted to be 1 to `at_most`.
pub fn wait_within(retry: &Value, at_most: i64, body: &Value) -> i64 {
    let secs = retry
        .as_i64()
        .unwrap_or_else(|| panic!("no wait in {body}"));
    assert!((1..=at_most).contains(&secs), "{body}");
    secs
}

/// Asserts the identity error envelope with `code` and `status`.
pub async fn assert_error(res: Response, status: u16, code: &str) -> Value {
    assert_eq!(res.status().as_u16(), status, "status for {code}");
    let v = body(res).await;
    assert_eq!(v["success"], false);
    assert_eq!(v["error"]["code"], code, "{v}");
    assert!(v["error"]["message"].is_string());
    assert!(v["error"]["details"].is_object());
    v
}

/// A valid phone number unique to one call (German mobile range).
/// Raises identity's per-phone sign-in limits (sender and ceiling) out of the way, so a
/// test reaches the per-address limit or the lockout it is about.
pub fn signin_phone_limits_off(s: &mut Settings) {
    let r = &mut s.services.identity.rate_limits;
    r.signin_per_phone.limit = 1000;
    r.signin_per_sender.limit = 1000;
}

pub fn phone() -> String {
    use rand::Rng;
    format!("+49176{:08}", rand::rng().random_range(0..100_000_000u32))
}

/// A handle unique to one call.
pub fn handle() -> String {
    format!("user_{}", &uuid::Uuid::new_v4().simple().to_string()[..10])
}

/// An OpenAPI document's operation ids are unique (the OpenAPI rule client
/// generators rely on) and every response link names an existing operation
/// and parameters that operation has. Returns the number of links.
pub fn assert_operations_and_links_consistent(doc: &Value) -> usize {
    let mut ops = std::collections::HashMap::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("path item") {
            let Some(id) = op["operationId"].as_str() else {
                continue;
            };
            let params: Vec<String> = op["parameters"]
                .as_array()
                .map(|ps| {
                    ps.iter()
                        .filter_map(|p| p["name"].as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            let previous = ops.insert(id.to_owned(), (format!("{method} {path}"), params));
            assert!(previous.is_none(), "operationId {id} is used twice");
        }
    }
    let mut links = 0;
    for item in doc["paths"].as_object().unwrap().values() {
        for op in item.as_object().unwrap().values() {
            let Some(responses) = op["responses"].as_object() else {
                continue;
            };
            for response in responses.values() {
                let Some(map) = response["links"].as_object() else {
                    continue;
                };
                for (name, link) in map {
                    let target = link["operationId"].as_str().expect("link operationId");
                    let (_, params) = ops
                        .get(target)
                        .unwrap_or_else(|| panic!("link {name} names unknown {target}"));
                    for p in link["parameters"]
                        .as_object()
                        .expect("link parameters")
                        .keys()
                    {
                        assert!(params.contains(p), "link {name}: {target} has no {p}");
                    }
                    links += 1;
                }
            }
        }
    }
    links
}

/// The messages aiosmtpd's Mailbox handler delivered into `maildir`.
pub fn maildir_messages(maildir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(maildir.join("new"))
        .map(|it| {
            it.filter_map(|e| std::fs::read_to_string(e.ok()?.path()).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// An HTTP client for a test that starts no application in this process (building one
/// installs the process's crypto provider; reqwest brings none of its own: core::tls).
pub fn http_client() -> reqwest::Client {
    switchboard::core::tls::install_crypto_provider();
    reqwest::Client::builder()
        .pool_idle_timeout(CLIENT_IDLE)
        .build()
        .expect("client")
}

/// How long test clients keep an idle connection: well under the server's 5 s keep-alive, so
/// a request after a slow step (an encode, a restart) never goes out on a connection the
/// server is closing at that moment (hyper's `IncompleteMessage` under load).
pub const CLIENT_IDLE: std::time::Duration = std::time::Duration::from_secs(2);

/// A server process a test starts itself (aiosmtpd, moto's S3 server), on a free loopback
/// port, stopped when dropped.
pub struct ChildServer {
    child: std::process::Child,
    pub port: u16,
}

impl ChildServer {
    /// Runs `python3 -m module args…`, where `{port}` in an argument stands for the free port
    /// chosen, and waits until the port accepts connections. `need` names what to install.
    /// The port is picked and released before the server binds it, so another test may take
    /// it in between: the server then exits (its bind failed) and another port is tried,
    /// rather than this test talking to a stranger on that port.
    pub async fn python(module: &str, args: &[&str], need: &str) -> Self {
        for _ in 0..5 {
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            let args = args.iter().map(|a| a.replace("{port}", &port.to_string()));
            let child = std::process::Command::new("python3")
                .args(["-m", module])
                .args(args)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("python3 with {need} (scripts/setup installs it): {e}"));
            // Owned from here on, so the process is stopped even when it never listens.
            let mut server = Self { child, port };
            if server.listening().await {
                return server;
            }
        }
        panic!("{module} did not start listening on any of five free ports");
    }

    /// Waits until the server itself listens on its port; false when it exited first (its
    /// bind failed: the port was taken).
    async fn listening(&mut self) -> bool {
        for _ in 0..300 {
            if crate::cluster::listens_on(self.child.id(), self.port) {
                return true;
            }
            if !matches!(self.child.try_wait(), Ok(None)) {
                return false;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("{} did not start listening", self.port);
    }
}

impl Drop for ChildServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The switchboard binary run as a process of its own, serving one service on a port it picks
/// itself: a port chosen by the test and bound later by the server could be taken by another
/// test in between (a stranger's server then answered this test's requests). The address
/// comes from the server's own "listening" log line. Killed when dropped.
pub struct ServedBinary {
    child: std::process::Child,
    pub base: String,
    output: Arc<std::sync::Mutex<String>>,
    readers: Vec<std::thread::JoinHandle<()>>,
}

impl ServedBinary {
    /// Starts `serve --only SERVICE` with `env` (the database, outbox and log level are set
    /// here unless `env` names them) and waits until it listens.
    pub async fn start(service: &str, dir: &std::path::Path, env: &[(&str, String)]) -> Self {
        let bind = format!("SWITCHBOARD__SERVICES__{}__BIND", service.to_uppercase());
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"));
        cmd.args(["--config", &dir.join("none.toml").display().to_string()])
            .args(["serve", "--only", service])
            .env(
                "SWITCHBOARD__DATABASE__URL",
                format!("sqlite://{}/db.sqlite?mode=rwc", dir.display()),
            )
            .env("SWITCHBOARD__OUTBOX__PATH", dir.join("outbox.jsonl"))
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .env(bind, "127.0.0.1:0")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        let output = Arc::new(std::sync::Mutex::new(String::new()));
        let mut readers = Vec::new();
        for stream in [
            Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
            Box::new(child.stderr.take().unwrap()),
        ] {
            let output = output.clone();
            readers.push(std::thread::spawn(move || {
                use std::io::BufRead;
                for line in std::io::BufReader::new(stream)
                    .lines()
                    .map_while(Result::ok)
                {
                    let mut out = output.lock().unwrap();
                    out.push_str(&line);
                    out.push('\n');
                }
            }));
        }
        let mut served = Self {
            child,
            base: String::new(),
            output,
            readers,
        };
        let started = std::time::Instant::now();
        loop {
            if let Some(addr) = listening_address(&served.output(), service) {
                served.base = format!("http://{addr}");
                return served;
            }
            if let Ok(Some(status)) = served.child.try_wait() {
                panic!("the server stopped ({status}): {}", served.output());
            }
            assert!(
                started.elapsed() < std::time::Duration::from_secs(60),
                "the server did not listen: {}",
                served.output()
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }

    /// What the process printed so far (stdout and stderr, line by line).
    pub fn output(&self) -> String {
        self.output.lock().unwrap().clone()
    }

    /// Kills the process and answers everything it printed.
    pub fn stop(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // The readers end with the pipes, after the last line.
        for reader in std::mem::take(&mut self.readers) {
            let _ = reader.join();
        }
        self.output()
    }
}

impl Drop for ServedBinary {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The address in the "listening" line of `service`, in the text or the JSON log format.
fn listening_address(logs: &str, service: &str) -> Option<String> {
    logs.lines()
        .filter(|l| l.contains("listening"))
        .filter(|l| {
            l.contains(&format!("service=\"{service}\""))
                || l.contains(&format!("\"service\":\"{service}\""))
        })
        .find_map(|l| {
            let (_, rest) = l
                .split_once("addr=")
                .or_else(|| l.split_once("\"addr\":\""))?;
            Some(rest.split(['"', ' ']).next()?.to_owned())
        })
}
