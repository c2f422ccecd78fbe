//! Database connection: SQLite (embedded default) or PostgreSQL, chosen by URL.

use sea_orm::{ConnectOptions, ConnectionTrait, Database, DatabaseConnection, DbBackend, DbErr};
use std::time::Duration;

pub async fn connect(url: &str, max_connections: u32) -> Result<DatabaseConnection, DbErr> {
    if let Some(path) = sqlite_file(url) {
        if let Some(dir) = std::path::Path::new(path).parent() {
            if !dir.as_os_str().is_empty() {
                std::fs::create_dir_all(dir).map_err(|e| DbErr::Custom(e.to_string()))?;
            }
        }
    }
    let mut opts = ConnectOptions::new(url.to_owned());
    opts.max_connections(max_connections)
        .min_connections(1)
        .connect_timeout(Duration::from_secs(10))
        .acquire_timeout(Duration::from_secs(10))
        .sqlx_logging(false);
    let db = Database::connect(opts).await?;
    if db.get_database_backend() == DbBackend::Sqlite {
        // WAL lets readers proceed while one writer commits; the busy timeout makes
        // concurrent writers wait instead of failing.
        db.execute_unprepared(
            "PRAGMA journal_mode=WAL; PRAGMA busy_timeout=10000; PRAGMA foreign_keys=ON;",
        )
        .await?;
    }
    Ok(db)
}

fn sqlite_file(url: &str) -> Option<&str> {
    let rest = url.strip_prefix("sqlite://")?;
    let path = rest.split('?').next()?;
    (!path.is_empty() && path != ":memory:").then_some(path)
}

/// True when the error is a unique-constraint violation (a lost race for a unique value).
pub fn is_unique_violation(err: &DbErr) -> bool {
    matches!(
        err.sql_err(),
        Some(sea_orm::SqlErr::UniqueConstraintViolation(_))
    )
}

pub use switchboard_entities::txn::begin_write;
