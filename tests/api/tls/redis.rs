//! `[cluster] redis_url = "rediss://…"` against Debian's redis-server with TLS only, under a
//! throwaway CA: a node starts and counts in it with `[tls] extra_ca_file`, and refuses to
//! start, naming the setting, without it.

use super::{free_port, TestCa};
use crate::helpers::{spawn_app_with, TestApp};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use switchboard::settings::Settings;
use switchboard::{Application, Overrides};

/// redis-server listening on TLS only (`--port 0`), nothing saved.
struct TlsRedis {
    child: Child,
    port: u16,
    _ca: TestCa,
    ca_file: String,
}

impl TlsRedis {
    fn start() -> Self {
        let ca = TestCa::new("Redis Test CA");
        let issued = ca.issue("redis", "localhost", false);
        // A port picked and released may be taken before redis binds it: that server exits
        // and the next port is tried (never a stranger's server on the port).
        let (child, port) = (0..5)
            .find_map(|_| {
                let port = free_port();
                let mut child = Command::new("redis-server")
                    .args(["--port", "0", "--tls-port", &port.to_string()])
                    .args(["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
                    .arg("--tls-cert-file")
                    .arg(&issued.cert)
                    .arg("--tls-key-file")
                    .arg(&issued.key)
                    .arg("--tls-ca-cert-file")
                    .arg(&ca.cert)
                    .args(["--tls-auth-clients", "no"])
                    .stdout(Stdio::null())
                    .spawn()
                    .expect("redis-server (scripts/setup installs it)");
                let deadline = Instant::now() + Duration::from_secs(10);
                while !crate::cluster::listens_on(child.id(), port) {
                    if !matches!(child.try_wait(), Ok(None)) {
                        return None;
                    }
                    assert!(
                        Instant::now() < deadline,
                        "redis-server did not start on TLS"
                    );
                    std::thread::sleep(Duration::from_millis(50));
                }
                Some((child, port))
            })
            .expect("redis-server on TLS on one of five free ports");
        Self {
            child,
            port,
            ca_file: ca.cert.display().to_string(),
            _ca: ca,
        }
    }

    /// By the name its certificate carries.
    fn url(&self) -> String {
        format!("rediss://localhost:{}/", self.port)
    }
}

impl Drop for TlsRedis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn health(app: &TestApp) -> serde_json::Value {
    app.client
        .get(format!("{}/health", app.identity))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[actix_web::test]
async fn a_node_uses_redis_over_tls_once_its_ca_is_trusted() {
    let redis = TlsRedis::start();
    let (url, ca) = (redis.url(), redis.ca_file.clone());
    let app = spawn_app_with(move |s| {
        s.cluster.redis_url = url;
        s.tls.extra_ca_file = ca;
    })
    .await;
    let v = health(&app).await;
    assert_eq!(v["checks"]["redis"]["status"], "up", "{v}");
    // The node's own connections (counters, the bus) are in that Redis, the TLS port only.
    let client = switchboard::core::tls::ExtraRoots::load(&app.settings.tls)
        .unwrap()
        .redis_client(&redis.url())
        .unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let clients: String = redis::cmd("CLIENT")
        .arg("LIST")
        .query_async(&mut conn)
        .await
        .unwrap();
    assert!(clients.lines().count() >= 2, "only ours: {clients}");
}

#[actix_web::test]
async fn a_node_refuses_to_start_on_a_redis_whose_certificate_it_does_not_trust() {
    let redis = TlsRedis::start();
    let dir = tempfile::tempdir().unwrap();
    let mut s = Settings::default();
    s.database.url = crate::helpers::fresh_database_url(dir.path()).await;
    s.outbox.path = dir.path().join("outbox.jsonl").display().to_string();
    s.providers.storage.path = dir.path().join("media").display().to_string();
    s.services.restrict_to(&["identity".to_owned()]);
    s.services.identity.bind = "127.0.0.1:0".into();
    s.cluster.redis_url = redis.url();
    let err = Application::build_with(s, Overrides::default())
        .await
        .err()
        .expect("refused")
        .to_string();
    assert_eq!(
        err,
        "Redis's certificate is not trusted: add its CA to [tls] extra_ca_file, or check [cluster] redis_url."
    );
}
