//! This process's node id: the name its job claims, message claims and actor leases carry.
//! It is stable across restarts — `[cluster] node_id`, or an id kept in a file of the data
//! directory — so a process restarted after a crash takes its own claims back at once instead
//! of waiting out their leases. It is fenced, so two live processes never act under one id:
//! the data directory's file is locked for the process's life, and the id's row in
//! `core_nodes` names the process holding it and is kept fresh by its heartbeat.

use super::secrets::random_hex;
use chrono::Utc;
use sea_orm::sea_query::{Condition, Expr, ExprTrait};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, DatabaseConnection, DbErr, EntityTrait, QueryFilter,
    TryInsertResult,
};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use switchboard_entities::core::node::{ActiveModel, Column, Entity, Model};
use tokio::sync::watch;

/// How often the holder renews its row.
const HEARTBEAT: Duration = Duration::from_secs(2);
/// A row whose heartbeat has not moved for this long belongs to a process that is gone.
const STALE: Duration = Duration::from_secs(6);
/// How often a starting process looks at a row that seems held.
const LOOK: Duration = Duration::from_millis(500);
/// Id files (`node-id`, `node-id.1`, …) one data directory offers processes sharing it.
const SLOTS: usize = 16;

#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    #[error("the node id file {path} cannot be used ({source}); check [server] data_dir")]
    File {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{SLOTS} processes already run with data directory {0} ([server] data_dir); give this one a data directory of its own")]
    Crowded(PathBuf),
    #[error(
        "[cluster] node_id \"{0}\" is in use by a live process; give each node an id of its own"
    )]
    InUse(String),
    #[error("the node id file {0} holds no valid id (letters, digits, '.', '_' or '-'; at most 64); remove it and a new one is made")]
    Invalid(PathBuf),
    #[error("{0}")]
    Database(#[from] DbErr),
}

/// This process's hold on its node id.
pub struct Node {
    pub id: Arc<str>,
    incarnation: String,
    db: DatabaseConnection,
    /// Locked until the id is released: the data directory's id is this process's alone.
    slot: Mutex<Option<File>>,
    /// Turns true when another process took the id over (this one missed its heartbeats).
    lost: watch::Sender<bool>,
    beating: Mutex<Option<tokio::task::AbortHandle>>,
}

impl Node {
    /// Takes the node id `configured` names (empty: the data directory's) for this process,
    /// waiting up to a few seconds for a holder that stopped beating to be seen dead.
    pub async fn establish(
        configured: &str,
        data_dir: &Path,
        db: &DatabaseConnection,
    ) -> Result<Self, NodeError> {
        let (id, slot) = match configured.trim() {
            "" => {
                let (id, file) = from_data_dir(data_dir)?;
                (id, Some(file))
            }
            id => (id.to_owned(), None),
        };
        let incarnation = random_hex(8);
        // An id read from this directory's file, locked now, was last used by a process that
        // is gone: locks end with their process.
        take(db, &id, &incarnation, slot.is_some()).await?;
        let node = Self {
            id: id.into(),
            incarnation,
            db: db.clone(),
            slot: Mutex::new(slot),
            lost: watch::channel(false).0,
            beating: Mutex::new(None),
        };
        *lock(&node.beating) = Some(node.keep_beating());
        Ok(node)
    }

    /// Resolves once another process has taken this id over; this one must stop acting.
    pub fn lost(&self) -> watch::Receiver<bool> {
        self.lost.subscribe()
    }

    pub fn is_lost(&self) -> bool {
        *self.lost.borrow()
    }

    fn keep_beating(&self) -> tokio::task::AbortHandle {
        let (db, id, me, lost) = (
            self.db.clone(),
            self.id.clone(),
            self.incarnation.clone(),
            self.lost.clone(),
        );
        let task = tokio::spawn(async move {
            let mut tick = tokio::time::interval(HEARTBEAT);
            tick.tick().await;
            loop {
                tick.tick().await;
                match beat(&db, &id, &me).await {
                    Ok(true) => {}
                    // The row is gone (the table was emptied or rebuilt, as by a migration
                    // rolled back and applied again): nobody else holds the id, so this
                    // process writes its row again.
                    Ok(false) => match reclaim(&db, &id, &me).await {
                        Ok(true) => {}
                        Ok(false) => {
                            tracing::error!(node = %id, "another process took this node id over (this one missed its heartbeats); stopping");
                            lost.send_replace(true);
                            return;
                        }
                        Err(e) => tracing::warn!(node = %id, error = %e, "node heartbeat failed"),
                    },
                    Err(e) => tracing::warn!(node = %id, error = %e, "node heartbeat failed"),
                }
            }
        });
        task.abort_handle()
    }

    /// Gives the id back on a clean stop, so the next process takes it without waiting:
    /// the heartbeat ends, the row is freed and the data directory's file unlocked.
    pub async fn release(&self, db: &DatabaseConnection) -> Result<(), DbErr> {
        self.stop_beating();
        let freed = Entity::update_many()
            .col_expr(Column::Incarnation, Expr::value(""))
            .filter(Column::Id.eq(&*self.id))
            .filter(Column::Incarnation.eq(&self.incarnation))
            .exec(db)
            .await;
        // Unlocked only once the row is free: a process taking the file at once must not
        // find the row still held.
        if let Some(file) = lock(&self.slot).take() {
            let _ = file.unlock();
        }
        freed.map(drop)
    }

    fn stop_beating(&self) {
        if let Some(beating) = lock(&self.beating).take() {
            beating.abort();
        }
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.stop_beating();
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Writes `me`'s row for `id` where none is; whether it did.
async fn reclaim(db: &DatabaseConnection, id: &str, me: &str) -> Result<bool, DbErr> {
    let now = Utc::now();
    let row = ActiveModel {
        id: Set(id.to_owned()),
        incarnation: Set(me.to_owned()),
        started_at: Set(now),
        heartbeat_at: Set(now),
        beats: Set(0),
    };
    let inserted = Entity::insert(row)
        .on_conflict_do_nothing_on([Column::Id])
        .exec_without_returning(db)
        .await?;
    Ok(matches!(inserted, TryInsertResult::Inserted(n) if n > 0))
}

async fn beat(db: &DatabaseConnection, id: &str, me: &str) -> Result<bool, DbErr> {
    let done = Entity::update_many()
        .col_expr(Column::HeartbeatAt, Expr::value(Utc::now()))
        .col_expr(Column::Beats, Expr::col(Column::Beats).add(1))
        .filter(Column::Id.eq(id))
        .filter(Column::Incarnation.eq(me))
        .exec(db)
        .await?;
    Ok(done.rows_affected == 1)
}

/// Makes `me` the holder of `id`: at once when the row is free, released, stale or
/// `proven_dead`; otherwise after watching its heartbeat stand still for [`STALE`].
async fn take(
    db: &DatabaseConnection,
    id: &str,
    me: &str,
    proven_dead: bool,
) -> Result<(), NodeError> {
    loop {
        let now = Utc::now();
        let stale_before = now - chrono::Duration::from_std(STALE).unwrap_or_default();
        let mut free = Condition::any()
            .add(Column::Incarnation.eq(""))
            .add(Column::HeartbeatAt.lt(stale_before));
        if proven_dead {
            free = free.add(Expr::value(true));
        }
        if hold(db, id, me, free).await? {
            return Ok(());
        }
        if reclaim(db, id, me).await? {
            return Ok(());
        }
        let Some(seen) = Entity::find_by_id(id).one(db).await? else {
            continue;
        };
        if watch_still(db, &seen).await? {
            // Still as it was: its holder is gone. Taken only if nobody else took it first.
            let unchanged = Condition::all()
                .add(Column::Incarnation.eq(&seen.incarnation))
                .add(Column::Beats.eq(seen.beats));
            if hold(db, id, me, unchanged).await? {
                return Ok(());
            }
        }
        // Beating, or taken meanwhile by another starting process.
        match Entity::find_by_id(id).one(db).await? {
            Some(now) if !now.incarnation.is_empty() => {
                return Err(NodeError::InUse(id.to_owned()))
            }
            _ => continue,
        }
    }
}

/// Watches `seen` for up to [`STALE`]: true when it stood still all along; false as soon as
/// it beat, changed hands or was released.
async fn watch_still(db: &DatabaseConnection, seen: &Model) -> Result<bool, DbErr> {
    let deadline = tokio::time::Instant::now() + STALE;
    while tokio::time::Instant::now() < deadline {
        tokio::time::sleep(LOOK).await;
        match Entity::find_by_id(&seen.id).one(db).await? {
            Some(row) if row.incarnation == seen.incarnation && row.beats == seen.beats => {}
            _ => return Ok(false),
        }
    }
    Ok(true)
}

/// Makes `me` the holder of `id` where `when` holds; whether it did.
async fn hold(db: &DatabaseConnection, id: &str, me: &str, when: Condition) -> Result<bool, DbErr> {
    let now = Utc::now();
    let done = Entity::update_many()
        .col_expr(Column::Incarnation, Expr::value(me))
        .col_expr(Column::StartedAt, Expr::value(now))
        .col_expr(Column::HeartbeatAt, Expr::value(now))
        .col_expr(Column::Beats, Expr::value(0))
        .filter(Column::Id.eq(id))
        .filter(when)
        .exec(db)
        .await?;
    Ok(done.rows_affected == 1)
}

/// The id kept in the first free id file of `dir`, made when the file is new, with the file
/// locked for this process.
fn from_data_dir(dir: &Path) -> Result<(String, File), NodeError> {
    let failed = |path: &Path| {
        let path = path.to_owned();
        move |source| NodeError::File { path, source }
    };
    std::fs::create_dir_all(dir).map_err(failed(dir))?;
    for n in 0..SLOTS {
        let path = match n {
            0 => dir.join("node-id"),
            n => dir.join(format!("node-id.{n}")),
        };
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(failed(&path))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => continue,
            Err(std::fs::TryLockError::Error(e)) => return Err(failed(&path)(e)),
        }
        let mut kept = String::new();
        file.read_to_string(&mut kept).map_err(failed(&path))?;
        let kept = kept.trim();
        if !kept.is_empty() {
            return match is_valid(kept) {
                true => Ok((kept.to_owned(), file)),
                false => Err(NodeError::Invalid(path)),
            };
        }
        let id = format!("node-{}", random_hex(4));
        let write = |file: &mut File| -> std::io::Result<()> {
            file.rewind()?;
            file.write_all(format!("{id}\n").as_bytes())?;
            file.sync_all()
        };
        write(&mut file).map_err(failed(&path))?;
        return Ok((id, file));
    }
    Err(NodeError::Crowded(dir.to_owned()))
}

/// Ids travel in bus channel names and claim columns: short and plain.
fn is_valid(id: &str) -> bool {
    id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_data_directory_keeps_its_id_and_gives_a_second_process_another() {
        let dir = tempfile::tempdir().expect("dir");
        let (first, lock) = from_data_dir(dir.path()).expect("first");
        let (second, _lock2) = from_data_dir(dir.path()).expect("second");
        assert_ne!(first, second, "a locked id is not shared");
        drop(lock);
        let (again, _) = from_data_dir(dir.path()).expect("again");
        assert_eq!(again, first, "the freed file's id comes back");
    }

    #[test]
    fn a_garbled_id_file_is_refused_by_name() {
        let dir = tempfile::tempdir().expect("dir");
        std::fs::write(dir.path().join("node-id"), "no spaces allowed\n").expect("write");
        let err = from_data_dir(dir.path()).expect_err("refused");
        assert!(err.to_string().contains("node-id"), "{err}");
    }
}
