//! The one sentence an operator reads when the process cannot start: what failed, why, and
//! the setting to change. Never the URL's password, never a `Debug` dump.

use super::net_error::{cause, innermost, Cause};
use sea_orm::{DbErr, RuntimeErr};

/// Where a database URL points, without its credentials: `host:port/name` or the SQLite file.
pub fn database_target(url: &str) -> String {
    if let Some(rest) = url.strip_prefix("sqlite://") {
        return format!("SQLite file {}", rest.split('?').next().unwrap_or(rest));
    }
    match url::Url::parse(url) {
        Ok(u) => format!(
            "{}:{}{}",
            u.host_str().unwrap_or("localhost"),
            u.port().unwrap_or(5432),
            u.path()
        ),
        Err(_) => "the configured server".into(),
    }
}

/// The connection to the database at start failed.
pub fn database(url: &str, err: &DbErr) -> String {
    let at = database_target(url);
    let setting = "[database] url (SWITCHBOARD__DATABASE__URL)";
    let Some(sqlx) = sqlx_error(err) else {
        return format!("cannot open the database at {at} ({err}): check {setting}.");
    };
    if let sea_orm::sqlx::Error::Database(db) = sqlx {
        // 28P01: a wrong password; 28000: no pg_hba.conf line lets this login in (a client
        // certificate required, a user or database not allowed).
        return match db.code().as_deref() {
            Some("28P01") => format!(
                "the database at {at} refused the login ({}): fix the user name or password in {setting}.",
                db.message()
            ),
            Some("28000") => format!(
                "the database at {at} refused the connection ({}): check the user, sslmode and client certificate (sslcert, sslkey) in {setting}.",
                db.message()
            ),
            Some("3D000") => format!(
                "the database at {at} does not exist ({}): create it or fix the database name in {setting}.",
                db.message()
            ),
            _ => format!("the database at {at} refused the connection ({}): check {setting}.", db.message()),
        };
    }
    match cause(sqlx) {
        Some(Cause::CertificateNotTrusted) => format!(
            "the database server's certificate at {at} is not trusted: name its CA with sslrootcert=/path/to/ca.pem in {setting}."
        ),
        Some(Cause::CertificateWrongHost) => format!(
            "the database server's certificate is not valid for {at}: connect by the host name it names, or use sslmode=verify-ca, in {setting}."
        ),
        Some(c @ (Cause::ConnectionRefused | Cause::UnknownHost | Cause::TimedOut)) => format!(
            "cannot reach the database at {at} ({}): check the host and port in {setting}, and that the server is running.",
            c.text()
        ),
        Some(c) => format!("cannot connect to the database at {at} ({}): check {setting}.", c.text()),
        None if matches!(sqlx, sea_orm::sqlx::Error::PoolTimedOut) => format!(
            "cannot reach the database at {at} (no connection within 10 s): check the host and port in {setting}, and that the server is running."
        ),
        None => format!(
            "cannot connect to the database at {at} ({}): check {setting}.",
            innermost(sqlx)
        ),
    }
}

/// Applying the migrations failed on a database that answered.
pub fn migration(url: &str, err: &DbErr) -> String {
    let why = sqlx_error(err).map_or_else(|| err.to_string(), |e| innermost(e));
    format!(
        "migrating the database at {} failed ({why}): restore it from a backup or point [database] url at the database this version's migrations came from.",
        database_target(url)
    )
}

/// Redis did not answer at start.
pub fn redis(err: &redis::RedisError) -> String {
    let why = cause(err).map_or_else(|| innermost(err), |c| c.text().to_owned());
    if cause(err) == Some(Cause::CertificateNotTrusted) {
        return "Redis's certificate is not trusted: add its CA to [tls] extra_ca_file, or check [cluster] redis_url.".into();
    }
    format!(
        "cannot reach Redis ({why}): check [cluster] redis_url (SWITCHBOARD__CLUSTER__REDIS_URL), or leave it empty for a single node."
    )
}

/// A service's listener could not bind.
pub fn listen(service: &str, bind: &str, err: &std::io::Error) -> String {
    let why = match err.kind() {
        std::io::ErrorKind::AddrInUse => "the port is taken by another process".to_owned(),
        std::io::ErrorKind::AddrNotAvailable => "no such address on this machine".to_owned(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        _ => err.to_string(),
    };
    format!("cannot listen on {bind} for {service} ({why}): change [services.{service}] bind.")
}

fn sqlx_error(err: &DbErr) -> Option<&sea_orm::sqlx::Error> {
    match err {
        DbErr::Conn(RuntimeErr::SqlxError(e))
        | DbErr::Exec(RuntimeErr::SqlxError(e))
        | DbErr::Query(RuntimeErr::SqlxError(e)) => Some(e),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_never_shows_the_password() {
        let at = database_target("postgres://app:s3cret@db.example.com:6543/prod?sslmode=require");
        assert_eq!(at, "db.example.com:6543/prod");
        assert_eq!(
            database_target("sqlite://data/x.db?mode=rwc"),
            "SQLite file data/x.db"
        );
    }
}
