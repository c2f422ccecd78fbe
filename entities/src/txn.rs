//! How every writer opens a transaction (the services, the job queue and the actors all
//! share this crate, so the one rule lives here).

use sea_orm::{
    DatabaseConnection, DatabaseTransaction, DbErr, SqliteTransactionMode, TransactionOptions,
    TransactionTrait,
};

/// Begins a transaction that will write. On SQLite it takes the write lock at once
/// (`BEGIN IMMEDIATE`, waiting up to the busy timeout): a deferred transaction that read
/// first fails with "database is locked" when another connection commits before it writes,
/// which background jobs writing beside requests made common. On PostgreSQL a plain BEGIN.
pub async fn begin_write(db: &DatabaseConnection) -> Result<DatabaseTransaction, DbErr> {
    db.begin_with_options(TransactionOptions {
        sqlite_transaction_mode: Some(SqliteTransactionMode::Immediate),
        ..TransactionOptions::default()
    })
    .await
}
