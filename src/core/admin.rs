//! What the command-line administration commands (`switchboard admin …`) fail with, for
//! every service: the operator reads the message; nothing here reaches an HTTP client.

use super::password::PasswordError;
use chrono::{DateTime, Utc};
use futures_util::future::BoxFuture;
use sea_orm::{DatabaseConnection, DbErr};

/// What an operator command runs with: the migrated database and the moment it runs at.
#[derive(Clone, Copy)]
pub struct AdminContext<'a> {
    pub db: &'a DatabaseConnection,
    pub now: DateTime<Utc>,
}

/// A running operator command (a service's `cli.rs`); its failure is one sentence for the
/// operator's terminal, whatever the layer that failed.
pub type AdminRun<'a> = BoxFuture<'a, Result<(), Box<dyn std::error::Error>>>;

#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    /// An argument the command cannot use, said in the operator's terms ("--role must be …").
    #[error("{0}")]
    Invalid(String),
    /// The record the command would make is there already (named: "an administrator with
    /// this email").
    #[error("{0} already exists")]
    Exists(&'static str),
    #[error("database: {0}")]
    Db(#[from] DbErr),
    #[error("password hashing: {0}")]
    Password(#[from] PasswordError),
}
