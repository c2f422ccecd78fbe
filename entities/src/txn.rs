//! How every writer opens a transaction (the services, the job queue and the actors all
//! share this crate, so the one rule lives here).

use sea_orm::{
    ConnectionTrait, DatabaseConnection, DatabaseTransaction, DbBackend, DbErr, ExecResult,
    QueryResult, SqliteTransactionMode, Statement, TransactionOptions, TransactionTrait,
};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::sync::OwnedMutexGuard;

/// A transaction that will write: a [`DatabaseTransaction`] that, on SQLite, also holds this
/// process's turn at the database's one write lock until it commits, rolls back or drops.
pub struct WriteTxn {
    // Declared first so it ends before the turn passes on.
    txn: DatabaseTransaction,
    _turn: Option<OwnedMutexGuard<()>>,
}

impl WriteTxn {
    pub async fn commit(self) -> Result<(), DbErr> {
        self.txn.commit().await
    }

    pub async fn rollback(self) -> Result<(), DbErr> {
        self.txn.rollback().await
    }
}

impl std::ops::Deref for WriteTxn {
    type Target = DatabaseTransaction;
    fn deref(&self) -> &DatabaseTransaction {
        &self.txn
    }
}

#[async_trait::async_trait]
impl ConnectionTrait for WriteTxn {
    fn get_database_backend(&self) -> DbBackend {
        self.txn.get_database_backend()
    }

    async fn execute_raw(&self, stmt: Statement) -> Result<ExecResult, DbErr> {
        self.txn.execute_raw(stmt).await
    }

    async fn execute_unprepared(&self, sql: &str) -> Result<ExecResult, DbErr> {
        self.txn.execute_unprepared(sql).await
    }

    async fn query_one_raw(&self, stmt: Statement) -> Result<Option<QueryResult>, DbErr> {
        self.txn.query_one_raw(stmt).await
    }

    async fn query_all_raw(&self, stmt: Statement) -> Result<Vec<QueryResult>, DbErr> {
        self.txn.query_all_raw(stmt).await
    }

    fn support_returning(&self) -> bool {
        self.txn.support_returning()
    }
}

/// Begins a transaction that will write. On SQLite it takes the write lock at once
/// (`BEGIN IMMEDIATE`): a deferred transaction that read first fails with "database is
/// locked" when another connection commits before it writes, which background jobs writing
/// beside requests made common. Before that, it waits its turn in this process's queue for
/// the database: SQLite's busy handler retries with growing sleeps, so under contention a
/// waiter that arrived first could sleep through many later ones (a bulk request once waited
/// a second behind background dispatch); the queue hands the lock over in arrival order. On
/// PostgreSQL a plain BEGIN.
pub async fn begin_write(db: &DatabaseConnection) -> Result<WriteTxn, DbErr> {
    let turn = match write_queue(db) {
        // As long as SQLite's own busy timeout: a writer that waits longer fails as it did
        // before, instead of hanging (a transaction that opened another would wait forever).
        Some(queue) => Some(
            tokio::time::timeout(TURN_TIMEOUT, queue.lock_owned())
                .await
                .map_err(|_| {
                    DbErr::Custom("timed out waiting for the database's write lock".into())
                })?,
        ),
        None => None,
    };
    let txn = db
        .begin_with_options(TransactionOptions {
            sqlite_transaction_mode: Some(SqliteTransactionMode::Immediate),
            ..TransactionOptions::default()
        })
        .await?;
    Ok(WriteTxn { txn, _turn: turn })
}

/// The longest wait for a turn; the same as the connections' `busy_timeout`.
const TURN_TIMEOUT: Duration = Duration::from_secs(10);

type Queues = Mutex<HashMap<PathBuf, Arc<tokio::sync::Mutex<()>>>>;

/// The write queue of a SQLite database file, shared by every connection pool this process
/// has on it; `None` on PostgreSQL.
fn write_queue(db: &DatabaseConnection) -> Option<Arc<tokio::sync::Mutex<()>>> {
    if db.get_database_backend() != DbBackend::Sqlite {
        return None;
    }
    let file = db
        .get_sqlite_connection_pool()
        .connect_options()
        .get_filename()
        .to_path_buf();
    static QUEUES: OnceLock<Queues> = OnceLock::new();
    let mut queues = QUEUES
        .get_or_init(Queues::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    Some(queues.entry(file).or_default().clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use sea_orm::Database;

    async fn sqlite() -> (DatabaseConnection, PathBuf) {
        let file = std::env::temp_dir().join(format!("txn-{}.sqlite", uuid::Uuid::new_v4()));
        let url = format!("sqlite://{}?mode=rwc", file.display());
        // Several connections, as the server pools them: the writers wait on SQLite's lock,
        // not for a connection.
        let mut opts = sea_orm::ConnectOptions::new(url);
        opts.max_connections(8);
        let db = Database::connect(opts).await.expect("sqlite");
        db.execute_unprepared("CREATE TABLE t (n INTEGER)")
            .await
            .expect("table");
        (db, file)
    }

    #[tokio::test]
    async fn writers_take_their_turns_in_arrival_order() {
        let (db, file) = sqlite().await;
        let first = begin_write(&db).await.unwrap();
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut waiting = Vec::new();
        for n in 1..=3 {
            let (db, order) = (db.clone(), order.clone());
            waiting.push(tokio::spawn(async move {
                let txn = begin_write(&db).await.unwrap();
                order.lock().unwrap().push(n);
                txn.execute_unprepared(&format!("INSERT INTO t VALUES ({n})"))
                    .await
                    .unwrap();
                txn.commit().await.unwrap();
            }));
            // Arrivals apart, so their order is known; the first waits long. SQLite's busy
            // handler sleeps longer the longer a writer has waited (100 ms steps by then), so
            // without the queue the later, fresh writers would overtake it.
            let apart = if n == 1 { 450 } else { 20 };
            tokio::time::sleep(Duration::from_millis(apart)).await;
        }
        assert!(order.lock().unwrap().is_empty(), "all wait for the first");
        first.commit().await.unwrap();
        for w in waiting {
            w.await.unwrap();
        }
        assert_eq!(*order.lock().unwrap(), vec![1, 2, 3]);
        // A dropped transaction passes the turn on too.
        drop(begin_write(&db).await.unwrap());
        begin_write(&db).await.unwrap().commit().await.unwrap();
        db.close().await.ok();
        std::fs::remove_file(file).ok();
    }
}
