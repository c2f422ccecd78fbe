//! Database connection: SQLite (embedded default) or PostgreSQL, chosen by URL.

use sea_orm::sqlx::sqlite::{SqliteJournalMode, SqliteSynchronous};
use sea_orm::{ConnectOptions, ConnectionTrait, Database, DatabaseConnection, DbErr};
use std::time::Duration;

/// Bytes of a SQLite database file each connection maps (1 GiB; a larger file is read past
/// it the ordinary way).
const MMAP_SIZE: u64 = 1 << 30;

/// KiB of page cache per SQLite connection.
const CACHE_KIB: i64 = 16 * 1024;

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
        .sqlx_logging(false)
        // A ping on every checkout is a round trip per query (on SQLite, a hop to the
        // connection's thread); only a connection idle long enough to have been dropped by
        // a server or a proxy is checked.
        .test_before_acquire_if_idle_for(Duration::from_secs(30))
        // Set on every pooled connection as it opens (a PRAGMA sent after connecting
        // reaches only the one connection that ran it).
        .map_sqlx_sqlite_opts(|o| {
            // WAL lets readers proceed while one writer commits. NORMAL syncs the WAL at
            // checkpoints rather than at every commit: a killed process loses nothing
            // committed (the WAL is in the OS's page cache); only a power loss may roll
            // back the last commits (docs/decisions.md).
            o.journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Normal)
                // Concurrent writers wait for the lock instead of failing.
                .busy_timeout(Duration::from_secs(10))
                .foreign_keys(true)
                // Pages are read through a shared memory map instead of copied into each
                // connection's own page cache by a `pread` per page: a list that walks a few
                // thousand index entries of 100,000 listings spent a third of its time in the
                // kernel copying pages (docs/decisions.md). Address space only, never memory
                // of its own; the pages are the OS's page cache, shared by every connection.
                .pragma("mmap_size", MMAP_SIZE.to_string())
                // Each connection keeps 16 MiB of pages (the default is 2 MiB): WAL frames not
                // yet checkpointed into the file are still read by `pread` and cached here.
                .pragma("cache_size", (-CACHE_KIB).to_string())
                // Sorts and GROUP BYs that outgrow the cache spill to memory, not a temp file.
                .pragma("temp_store", "memory")
        });
    let db = Database::connect(opts).await?;
    Ok(db)
}

/// Runs `migrate` holding the database's migration lock, so that nodes starting at once on
/// a new database migrate one after another (the later ones find the work done) instead of
/// racing to create the same tables. PostgreSQL: a session advisory lock on a connection of
/// its own (released with the connection, should the process die). SQLite: an exclusive
/// lock on a file beside the database (never on the database file itself: closing any
/// handle of it would drop SQLite's own locks).
pub async fn with_migration_lock<T, F>(url: &str, migrate: F) -> Result<T, DbErr>
where
    F: std::future::Future<Output = Result<T, DbErr>>,
{
    if url.starts_with("postgres") {
        let lock = connect(url, 1).await?;
        lock.execute_unprepared(&format!("SELECT pg_advisory_lock({MIGRATION_LOCK})"))
            .await?;
        let done = migrate.await;
        // Closing the connection would release it too; unlocking says so at once.
        let _ = lock
            .execute_unprepared(&format!("SELECT pg_advisory_unlock({MIGRATION_LOCK})"))
            .await;
        let _ = lock.close().await;
        return done;
    }
    let Some(path) = sqlite_file(url) else {
        return migrate.await;
    };
    let lock_path = format!("{path}.migrate-lock");
    let file = tokio::task::spawn_blocking(move || {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)?;
        file.lock()?;
        Ok::<_, std::io::Error>(file)
    })
    .await
    .map_err(|e| DbErr::Custom(e.to_string()))?
    .map_err(|e| DbErr::Custom(format!("the migration lock file: {e}")))?;
    let done = migrate.await;
    drop(file);
    done
}

/// The advisory lock key of migrations (any fixed number no other lock uses).
const MIGRATION_LOCK: i64 = 0x5357_4d49_4752_4154; // "SWMIGRAT"

/// The file a SQLite URL names (none for `:memory:` or another database).
pub fn sqlite_file(url: &str) -> Option<&str> {
    let rest = url.strip_prefix("sqlite://")?;
    let path = rest.split('?').next()?;
    (!path.is_empty() && path != ":memory:").then_some(path)
}

/// True for an SQLite database in this process's memory, which no other process can see.
pub fn is_in_memory(url: &str) -> bool {
    url.starts_with("sqlite:") && (url.contains(":memory:") || url.contains("mode=memory"))
}

/// True when the error is a unique-constraint violation (a lost race for a unique value).
pub fn is_unique_violation(err: &DbErr) -> bool {
    matches!(
        err.sql_err(),
        Some(sea_orm::SqlErr::UniqueConstraintViolation(_))
    )
}

pub use switchboard_entities::txn::begin_write;

/// The rows of `E` whose `column` is one of `ids`, keyed by `key` (one statement; none for
/// no ids): what a page of records refers to, read once for the page.
pub async fn rows_by<E, K>(
    db: &impl sea_orm::ConnectionTrait,
    column: E::Column,
    ids: Vec<K>,
    key: impl Fn(&E::Model) -> K,
) -> Result<std::collections::HashMap<K, E::Model>, DbErr>
where
    E: sea_orm::EntityTrait,
    K: Into<sea_orm::Value> + Eq + std::hash::Hash,
{
    use sea_orm::{ColumnTrait, QueryFilter};
    if ids.is_empty() {
        return Ok(Default::default());
    }
    let rows = E::find().filter(column.is_in(ids)).all(db).await?;
    Ok(rows.into_iter().map(|r| (key(&r), r)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_memory_urls_are_told_from_files_and_servers() {
        assert!(is_in_memory("sqlite::memory:"));
        assert!(is_in_memory("sqlite://:memory:"));
        assert!(is_in_memory("sqlite://shared?mode=memory&cache=shared"));
        assert!(!is_in_memory("sqlite://data/switchboard.db?mode=rwc"));
        assert!(!is_in_memory("postgres://u@h/memory"));
    }
}
