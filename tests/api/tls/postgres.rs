//! PostgreSQL over TLS with every sslmode, against a real server the test starts (`ssl =
//! on`, its certificate from a throwaway CA, a `hostssl … cert` line for client
//! certificates), through the connect function the application uses.

use super::{free_port, Issued, TestCa};
use sea_orm::{ConnectionTrait, DbBackend, Statement};
use std::path::{Path, PathBuf};
use std::process::Command;

pub const PASSWORD: &str = "pw-0123456789";

/// A PostgreSQL 15 server on a free loopback port with TLS on; `postgres` logs in with
/// [`PASSWORD`] (with or without TLS), `certuser` only over TLS with a client certificate.
pub struct SslPostgres {
    pub port: u16,
    pub ca: TestCa,
    /// `certuser`'s client certificate.
    pub client: Issued,
    data: PathBuf,
}

fn bin(name: &str) -> PathBuf {
    let dir = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL binaries under /usr/lib/postgresql (scripts/setup installs them)")
        .filter_map(|e| Some(e.ok()?.path().join("bin")))
        .max()
        .expect("a PostgreSQL version");
    dir.join(name)
}

fn as_postgres(program: &Path, args: &[&str]) {
    let out = Command::new("runuser")
        .args(["-u", "postgres", "--"])
        .arg(program)
        .args(args)
        .output()
        .expect("runuser");
    assert!(
        out.status.success(),
        "{program:?} {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

impl SslPostgres {
    pub fn start() -> Self {
        let ca = TestCa::new("PostgreSQL Test CA");
        let server = ca.issue("server", "localhost", false);
        let client = ca.issue("client", "certuser", false);
        let d = ca.dir.path();
        let data = d.join("data");
        let hba = d.join("pg_hba.conf");
        std::fs::write(
            &hba,
            "local all all trust\n\
             hostssl all certuser 127.0.0.1/32 cert\n\
             host all postgres 127.0.0.1/32 scram-sha-256\n",
        )
        .unwrap();
        // The server runs as postgres: it reads its files, its key private to it.
        let chown = Command::new("chown")
            .args(["-R", "postgres:postgres"])
            .arg(d)
            .status()
            .unwrap();
        assert!(chown.success());
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&server.key, std::fs::Permissions::from_mode(0o600)).unwrap();
        let data_s = data.display().to_string();
        as_postgres(
            &bin("initdb"),
            &["-D", &data_s, "-U", "postgres", "--auth=trust"],
        );
        let port = free_port();
        let options = format!(
            "-p {port} -k {} -c listen_addresses=127.0.0.1 -c ssl=on -c ssl_cert_file={} \
             -c ssl_key_file={} -c ssl_ca_file={} -c hba_file={} -c fsync=off",
            d.display(),
            server.cert.display(),
            server.key.display(),
            ca.cert.display(),
            hba.display()
        );
        let log = d.join("server.log").display().to_string();
        as_postgres(
            &bin("pg_ctl"),
            &["-D", &data_s, "-l", &log, "-o", &options, "-w", "start"],
        );
        let sock = d.display().to_string();
        let port_s = port.to_string();
        as_postgres(
            &bin("psql"),
            &[
                "-h",
                &sock,
                "-p",
                &port_s,
                "-U",
                "postgres",
                "-d",
                "postgres",
                "-qAt",
                "-c",
                &format!("ALTER USER postgres PASSWORD '{PASSWORD}'"),
                "-c",
                "CREATE USER certuser",
                "-c",
                "CREATE DATABASE certdb OWNER certuser",
            ],
        );
        Self {
            port,
            ca,
            client,
            data,
        }
    }

    /// `postgres://postgres:…@host:port/postgres?query`.
    pub fn url(&self, host: &str, query: &str) -> String {
        format!(
            "postgres://postgres:{PASSWORD}@{host}:{}/postgres?{query}",
            self.port
        )
    }
}

impl Drop for SslPostgres {
    fn drop(&mut self) {
        let data = self.data.display().to_string();
        let _ = Command::new("runuser")
            .args(["-u", "postgres", "--"])
            .arg(bin("pg_ctl"))
            .args(["-D", &data, "-m", "immediate", "stop"])
            .output();
    }
}

/// Whether the connection `url` opens runs over TLS (the server's own word).
async fn over_tls(url: &str) -> Result<bool, String> {
    let db = switchboard::core::db::connect(url, 1)
        .await
        .map_err(|e| switchboard::core::start_failure::database(url, &e))?;
    let row = db
        .query_one_raw(Statement::from_string(
            DbBackend::Postgres,
            "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
        ))
        .await
        .unwrap()
        .unwrap();
    let ssl: bool = row.try_get("", "ssl").unwrap();
    db.close().await.ok();
    Ok(ssl)
}

#[actix_web::test]
async fn every_sslmode_connects_as_postgresql_defines_it() {
    switchboard::core::tls::install_crypto_provider();
    let pg = SslPostgres::start();
    let ca = pg.ca.cert.display().to_string();
    let wrong = TestCa::new("Some Other CA");
    let wrong_ca = wrong.cert.display().to_string();

    // disable and allow start without TLS (the server accepts both); prefer and require
    // take TLS without checking the certificate at all.
    assert_eq!(
        over_tls(&pg.url("127.0.0.1", "sslmode=disable")).await,
        Ok(false)
    );
    assert_eq!(
        over_tls(&pg.url("127.0.0.1", "sslmode=allow")).await,
        Ok(false)
    );
    assert_eq!(
        over_tls(&pg.url("127.0.0.1", "sslmode=prefer")).await,
        Ok(true)
    );
    let require = format!("sslmode=require&sslrootcert={wrong_ca}");
    assert_eq!(over_tls(&pg.url("127.0.0.1", &require)).await, Ok(true));

    // verify-ca checks the chain only: the address is fine, another CA is not.
    let verify_ca = format!("sslmode=verify-ca&sslrootcert={ca}");
    assert_eq!(over_tls(&pg.url("127.0.0.1", &verify_ca)).await, Ok(true));
    let untrusted = format!("sslmode=verify-ca&sslrootcert={wrong_ca}");
    let err = over_tls(&pg.url("127.0.0.1", &untrusted))
        .await
        .unwrap_err();
    assert!(
        err.starts_with("the database server's certificate at 127.0.0.1:")
            && err.contains("is not trusted: name its CA with sslrootcert="),
        "{err}"
    );

    // verify-full also checks the name: the certificate names localhost, not 127.0.0.1.
    let verify_full = format!("sslmode=verify-full&sslrootcert={ca}");
    assert_eq!(over_tls(&pg.url("localhost", &verify_full)).await, Ok(true));
    let err = over_tls(&pg.url("127.0.0.1", &verify_full))
        .await
        .unwrap_err();
    // Refused either way; which of its two checks rustls reports first varies (the chain
    // is not anchored for an IP name lookup, or the name is wrong).
    assert!(
        err.contains("is not valid for 127.0.0.1:") || err.contains("is not trusted"),
        "{err}"
    );

    // A client certificate logs certuser in where pg_hba says `cert`; without one, refused.
    let cert_url = |extra: &str| {
        format!(
            "postgres://certuser@localhost:{}/certdb?sslmode=verify-full&sslrootcert={ca}{extra}",
            pg.port
        )
    };
    let with_cert = format!(
        "&sslcert={}&sslkey={}",
        pg.client.cert.display(),
        pg.client.key.display()
    );
    assert_eq!(over_tls(&cert_url(&with_cert)).await, Ok(true));
    let err = over_tls(&cert_url("")).await.unwrap_err();
    assert!(
        err.contains("client certificate (sslcert, sslkey)"),
        "{err}"
    );
}

#[actix_web::test]
async fn the_application_runs_on_postgresql_over_verified_tls_with_a_client_certificate() {
    let pg = SslPostgres::start();
    let url = format!(
        "postgres://certuser@localhost:{}/certdb?sslmode=verify-full&sslrootcert={}&sslcert={}&sslkey={}",
        pg.port,
        pg.ca.cert.display(),
        pg.client.cert.display(),
        pg.client.key.display()
    );
    let app = crate::helpers::spawn_app_with(move |s| s.database.url = url).await;
    let res = app
        .client
        .get(format!("{}/health", app.identity))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let v: serde_json::Value = res.json().await.unwrap();
    assert_eq!(v["checks"]["database"]["status"], "up", "{v}");
}
