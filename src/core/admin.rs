//! What the command-line administration commands (`switchboard admin …`) fail with, for
//! every service: the operator reads the message; nothing here reaches an HTTP client.

use super::password::PasswordError;
use sea_orm::DbErr;

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
