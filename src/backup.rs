//! `switchboard backup --to DIR` and `switchboard restore --from DIR [--force]`: the
//! configured database (SQLite through `VACUUM INTO`, a consistent snapshot taken while the
//! server keeps writing; PostgreSQL through `pg_dump`/`pg_restore`), the marketplace
//! sandbox's SQLite database, and the local media directory, copied after the database so
//! every file the snapshot names was complete when copied. The node id file is left out on
//! purpose: a restored copy started elsewhere must not act under the original's id.

use crate::core::db;
use crate::settings::Settings;
use sea_orm::{ConnectionTrait, DatabaseConnection, Statement};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::Command;

const MANIFEST: &str = "backup.json";
const FORMAT: u32 = 1;
/// A node whose heartbeat is this recent is taken to be running (`core::node` beats every 2 s).
const LIVE_SECS: i64 = 10;

#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error("{0}")]
    Refused(String),
    #[error("{what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
    #[error("{what}: {source}")]
    Database {
        what: String,
        source: sea_orm::DbErr,
    },
    #[error("{tool} failed: {output}")]
    Tool { tool: &'static str, output: String },
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> BackupError {
    let what = what.into();
    move |source| BackupError::Io { what, source }
}

fn database(what: impl Into<String>) -> impl FnOnce(sea_orm::DbErr) -> BackupError {
    let what = what.into();
    move |source| BackupError::Database { what, source }
}

/// What a backup directory holds, written last: a directory without it is not a backup.
#[derive(Debug, Serialize, Deserialize)]
pub struct Manifest {
    pub format: u32,
    pub created_at: chrono::DateTime<chrono::Utc>,
    pub build: String,
    /// `sqlite` or `postgres`.
    pub database: String,
    pub database_file: String,
    pub sandbox_file: Option<String>,
    pub media_dir: Option<String>,
}

/// Where the configured data lives.
struct Places {
    database: Database,
    sandbox: Option<PathBuf>,
    media: Option<PathBuf>,
}

enum Database {
    Sqlite(PathBuf),
    Postgres(String),
}

impl Places {
    fn of(settings: &Settings) -> Result<Self, BackupError> {
        let url = &settings.database.url;
        let database =
            match db::sqlite_file(url) {
                Some(path) => Database::Sqlite(path.into()),
                None if url.starts_with("postgres") => Database::Postgres(url.clone()),
                None => return Err(BackupError::Refused(
                    "[database] url names neither a SQLite file nor PostgreSQL; nothing to back up"
                        .into(),
                )),
            };
        let sandbox = &settings.services.marketplace.sandbox;
        let sandbox = sandbox
            .enabled
            .then(|| db::sqlite_file(&sandbox.database_url).map(PathBuf::from))
            .flatten();
        let storage = &settings.providers.storage;
        let media = (storage.provider == "local").then(|| PathBuf::from(&storage.path));
        Ok(Self {
            database,
            sandbox,
            media,
        })
    }
}

/// Writes a backup of everything `settings` names into `to` (missing or empty).
pub async fn backup(settings: &Settings, to: &Path) -> Result<Manifest, BackupError> {
    let places = Places::of(settings)?;
    if !is_empty_dir(to)? {
        return Err(BackupError::Refused(format!(
            "{} is not empty; back up into a new directory",
            to.display()
        )));
    }
    std::fs::create_dir_all(to).map_err(io(format!("creating {}", to.display())))?;
    let (kind, database_file) = match &places.database {
        Database::Sqlite(path) => {
            require_file(path, "[database] url")?;
            snapshot_sqlite(path, &to.join("database.sqlite")).await?;
            ("sqlite", "database.sqlite")
        }
        Database::Postgres(url) => {
            let file = to.join("database.pgdump");
            run_tool(
                "pg_dump",
                Command::new("pg_dump")
                    .args(["--format=custom", "--no-owner", "--file"])
                    .arg(&file)
                    .arg(url),
            )?;
            ("postgres", "database.pgdump")
        }
    };
    let mut sandbox_file = None;
    if let Some(path) = places.sandbox.as_ref().filter(|p| p.is_file()) {
        snapshot_sqlite(path, &to.join("sandbox.sqlite")).await?;
        sandbox_file = Some("sandbox.sqlite".to_owned());
    }
    // After the database: every object its snapshot names was written before it.
    let mut media_dir = None;
    if let Some(media) = places.media.as_ref().filter(|p| p.is_dir()) {
        copy_tree(media, &to.join("media"))?;
        media_dir = Some("media".to_owned());
    }
    let manifest = Manifest {
        format: FORMAT,
        created_at: chrono::Utc::now(),
        build: env!("CARGO_PKG_VERSION").into(),
        database: kind.into(),
        database_file: database_file.into(),
        sandbox_file,
        media_dir,
    };
    let text = serde_json::to_vec_pretty(&manifest).unwrap_or_default();
    std::fs::write(to.join(MANIFEST), text).map_err(io("writing the manifest"))?;
    Ok(manifest)
}

/// Puts the backup in `from` into the places `settings` names. Places holding data are
/// refused unless `force`, and never while a process runs on the database.
pub async fn restore(
    settings: &Settings,
    from: &Path,
    force: bool,
) -> Result<Manifest, BackupError> {
    let manifest: Manifest = {
        let text = std::fs::read(from.join(MANIFEST)).map_err(io(format!(
            "{} is not a backup (no {MANIFEST})",
            from.display()
        )))?;
        serde_json::from_slice(&text).map_err(|e| {
            BackupError::Refused(format!("{}: unreadable manifest ({e})", from.display()))
        })?
    };
    if manifest.format != FORMAT {
        return Err(BackupError::Refused(format!(
            "backup format {} is not known to this build (it reads {FORMAT})",
            manifest.format
        )));
    }
    let places = Places::of(settings)?;
    let mut occupied = Vec::new();
    match (&places.database, manifest.database.as_str()) {
        (Database::Sqlite(path), "sqlite") => {
            if path.metadata().is_ok_and(|m| m.len() > 0) {
                occupied.push(format!("the database {}", path.display()));
            }
        }
        (Database::Postgres(url), "postgres") => {
            let conn = db::connect(url, 1).await.map_err(database("[database] url"))?;
            if has_tables(&conn).await? {
                occupied.push("the PostgreSQL database of [database] url".to_owned());
            }
            refuse_if_running(&conn).await?;
        }
        (_, kind) => {
            return Err(BackupError::Refused(format!(
                "the backup holds a {kind} database but [database] url names another kind; restore it into a {kind} database"
            )))
        }
    }
    if let Some(media) = places
        .media
        .as_ref()
        .filter(|_| manifest.media_dir.is_some())
    {
        if !is_empty_dir(media)? {
            occupied.push(format!("the media directory {}", media.display()));
        }
    }
    if !occupied.is_empty() && !force {
        return Err(BackupError::Refused(format!(
            "{} already hold data; restore --force replaces it",
            occupied.join(" and ")
        )));
    }
    match &places.database {
        Database::Sqlite(path) => {
            if path.is_file() {
                let conn = db::connect(&settings.database.url, 1)
                    .await
                    .map_err(database("[database] url"))?;
                refuse_if_running(&conn).await?;
                conn.close().await.ok();
            }
            place_sqlite(&from.join(&manifest.database_file), path)?;
        }
        Database::Postgres(url) => run_tool(
            "pg_restore",
            Command::new("pg_restore")
                .args(["--clean", "--if-exists", "--no-owner", "--exit-on-error"])
                .args(["--single-transaction", "--dbname"])
                .arg(url)
                .arg(from.join(&manifest.database_file)),
        )?,
    }
    let conn = db::connect(&settings.database.url, 1)
        .await
        .map_err(database("[database] url"))?;
    forget_processes(&conn).await?;
    conn.close().await.ok();
    if let (Some(file), Some(path)) = (&manifest.sandbox_file, &places.sandbox) {
        place_sqlite(&from.join(file), path)?;
    }
    if let (Some(dir), Some(media)) = (&manifest.media_dir, &places.media) {
        if media.exists() {
            std::fs::remove_dir_all(media).map_err(io(format!("emptying {}", media.display())))?;
        }
        copy_tree(&from.join(dir), media)?;
    }
    Ok(manifest)
}

/// A consistent copy of the SQLite database at `path`, taken in one read transaction while
/// writers go on (they wait only for the checkpoint, never for the copy).
async fn snapshot_sqlite(path: &Path, to: &Path) -> Result<(), BackupError> {
    let url = format!("sqlite://{}?mode=rw", path.display());
    let conn = db::connect(&url, 1)
        .await
        .map_err(database(format!("opening {}", path.display())))?;
    let target = to.display().to_string().replace('\'', "''");
    conn.execute_unprepared(&format!("VACUUM INTO '{target}'"))
        .await
        .map_err(database(format!("copying {}", path.display())))?;
    conn.close().await.ok();
    Ok(())
}

/// Puts the SQLite file `from` at `to` whole: written beside it, then renamed over it, with
/// the old file's write-ahead log removed (it belongs to the replaced database).
fn place_sqlite(from: &Path, to: &Path) -> Result<(), BackupError> {
    if let Some(dir) = to.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io(format!("creating {}", dir.display())))?;
    }
    let staged = to.with_extension("restoring");
    std::fs::copy(from, &staged).map_err(io(format!("copying {}", from.display())))?;
    for suffix in ["-wal", "-shm"] {
        let side = PathBuf::from(format!("{}{suffix}", to.display()));
        if side.exists() {
            std::fs::remove_file(&side).map_err(io(format!("removing {}", side.display())))?;
        }
    }
    std::fs::rename(&staged, to).map_err(io(format!("placing {}", to.display())))
}

/// The backed-up processes are not the ones that will run on the restored database: their
/// node ids, actor leases and job claims go, so the next start takes the work up at once.
async fn forget_processes(conn: &DatabaseConnection) -> Result<(), BackupError> {
    use sea_orm::sea_query::Expr;
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
    use switchboard_entities::core::{actor_lease, job, node};
    let what = || database("clearing the backed-up processes' claims");
    node::Entity::delete_many()
        .exec(conn)
        .await
        .map_err(what())?;
    actor_lease::Entity::delete_many()
        .exec(conn)
        .await
        .map_err(what())?;
    job::Entity::update_many()
        .col_expr(job::Column::Status, Expr::value(job::JobStatus::Queued))
        .col_expr(job::Column::LeaseOwner, Expr::value(Option::<String>::None))
        .col_expr(
            job::Column::LeaseUntil,
            Expr::value(Option::<chrono::DateTime<chrono::Utc>>::None),
        )
        .filter(job::Column::Status.eq(job::JobStatus::Running))
        .exec(conn)
        .await
        .map_err(what())?;
    Ok(())
}

async fn has_tables(conn: &DatabaseConnection) -> Result<bool, BackupError> {
    let row = conn
        .query_one_raw(Statement::from_string(
            conn.get_database_backend(),
            "SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = 'public'",
        ))
        .await
        .map_err(database("reading the target database"))?;
    Ok(row
        .and_then(|r| r.try_get::<i64>("", "n").ok())
        .is_some_and(|n| n > 0))
}

/// Refuses while a node's heartbeat on `conn` is fresh: restoring under a running server
/// would mix its writes with the backup's.
async fn refuse_if_running(conn: &DatabaseConnection) -> Result<(), BackupError> {
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
    use switchboard_entities::core::node;
    let since = chrono::Utc::now() - chrono::Duration::seconds(LIVE_SECS);
    let live = node::Entity::find()
        .filter(node::Column::Incarnation.ne(""))
        .filter(node::Column::HeartbeatAt.gt(since))
        .one(conn)
        .await;
    match live {
        Ok(Some(node)) => Err(BackupError::Refused(format!(
            "node {} is running on the target database; stop every switchboard process on it first",
            node.id
        ))),
        // A database from before node ids, or none yet: nothing runs on it.
        Ok(None) | Err(_) => Ok(()),
    }
}

fn require_file(path: &Path, setting: &str) -> Result<(), BackupError> {
    match path.is_file() {
        true => Ok(()),
        false => Err(BackupError::Refused(format!(
            "no database file at {} ({setting}); nothing to back up",
            path.display()
        ))),
    }
}

fn is_empty_dir(dir: &Path) -> Result<bool, BackupError> {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => Ok(entries.next().is_none()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(true),
        Err(e) => Err(io(format!("reading {}", dir.display()))(e)),
    }
}

/// Copies the files under `from` to `to`, keeping their relative paths.
fn copy_tree(from: &Path, to: &Path) -> Result<(), BackupError> {
    std::fs::create_dir_all(to).map_err(io(format!("creating {}", to.display())))?;
    let entries = std::fs::read_dir(from).map_err(io(format!("reading {}", from.display())))?;
    for entry in entries {
        let entry = entry.map_err(io(format!("reading {}", from.display())))?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        let kind = entry
            .file_type()
            .map_err(io(format!("reading {}", src.display())))?;
        if kind.is_dir() {
            copy_tree(&src, &dst)?;
        } else if kind.is_file() {
            match std::fs::copy(&src, &dst) {
                Ok(_) => {}
                // Removed since it was listed (a sweep, a replaced video): not in the snapshot.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io(format!("copying {}", src.display()))(e)),
            }
        }
    }
    Ok(())
}

fn run_tool(tool: &'static str, cmd: &mut Command) -> Result<(), BackupError> {
    let out = cmd.output().map_err(|e| {
        BackupError::Refused(format!(
            "{tool} could not be run ({e}); install PostgreSQL's client tools of your server's version"
        ))
    })?;
    match out.status.success() {
        true => Ok(()),
        false => Err(BackupError::Tool {
            tool,
            output: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        }),
    }
}
