//! Administrators' accounts: the first one seeded from `[services.advertising.admin]`,
//! more made by the operator's command, and sign-in by email and password (argon2id off
//! the executor; a wrong email and a wrong password answer alike).

use super::super::error::Result;
use super::super::posters::domain;
use super::super::sessions::{self, AccountKind};
use super::super::settings::AdminSeed;
use super::super::state::AdvertisingState;
use crate::core::admin::AdminError;
use crate::core::error::ApiError;
use crate::core::password;
use chrono::{DateTime, Utc};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, DatabaseConnection, DbErr, EntityTrait, QueryFilter, Set, SqlErr,
};
use switchboard_entities::advertising::admin;
use uuid::Uuid;

/// Shortest administrator password the command accepts.
pub const MIN_PASSWORD_CHARS: usize = 10;

/// Makes an administrator (`switchboard admin create-ads-admin`).
pub async fn create(
    db: &DatabaseConnection,
    now: DateTime<Utc>,
    email: &str,
    role: &str,
    password: &str,
) -> Result<admin::Model, AdminError> {
    let email = domain::email(email)
        .map_err(|_| AdminError::Invalid("--email must be a valid email address".into()))?;
    if sessions::admin_role(role).is_none() {
        return Err(AdminError::Invalid(
            "--role must be admin, moderator or finance".into(),
        ));
    }
    if password.chars().count() < MIN_PASSWORD_CHARS {
        return Err(AdminError::Invalid(
            "--password must be at least 10 characters".into(),
        ));
    }
    insert_absent(db, now, &email, role, password)
        .await?
        .ok_or(AdminError::Exists("an administrator with this email"))
}

/// Writes the administrator unless one with `email` exists (then None). Two nodes starting
/// at once insert one row: the unique email decides, the loser changes nothing.
async fn insert_absent(
    db: &DatabaseConnection,
    now: DateTime<Utc>,
    email: &str,
    role: &str,
    password: &str,
) -> Result<Option<admin::Model>, AdminError> {
    let by_email = || admin::Entity::find().filter(admin::Column::Email.eq(email));
    if by_email().one(db).await?.is_some() {
        return Ok(None);
    }
    let hash = password::hash(password.to_owned()).await?;
    let row = admin::ActiveModel {
        id: Set(Uuid::new_v4()),
        email: Set(email.to_owned()),
        password_hash: Set(hash),
        role: Set(role.to_owned()),
        created_at: Set(now),
        updated_at: Set(now),
    };
    match row.insert(db).await {
        Ok(a) => Ok(Some(a)),
        Err(e) if matches!(e.sql_err(), Some(SqlErr::UniqueConstraintViolation(_))) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Makes the configured first administrator when absent (every start, every node).
pub async fn seed(
    db: &DatabaseConnection,
    now: DateTime<Utc>,
    cfg: &AdminSeed,
) -> Result<(), DbErr> {
    let email = domain::email(&cfg.email).map_err(|_| {
        DbErr::Custom("services.advertising.admin.email is not an email address".into())
    })?;
    match insert_absent(db, now, &email, "admin", &cfg.password).await {
        Ok(Some(_)) => {
            tracing::info!(email = %email, "administrator created from [services.advertising.admin]");
            Ok(())
        }
        Ok(None) => Ok(()),
        Err(AdminError::Db(e)) => Err(e),
        Err(e) => Err(DbErr::Custom(e.to_string())),
    }
}

fn invalid_credentials() -> ApiError {
    ApiError::unauthorized("email or password is incorrect").code("invalid_credentials")
}

/// Checks the email and password: the administrator and a token.
pub async fn login(
    st: &AdvertisingState,
    email: &str,
    secret: &str,
) -> Result<(admin::Model, String)> {
    let email = email.trim().to_ascii_lowercase();
    let found = admin::Entity::find()
        .filter(admin::Column::Email.eq(email))
        .one(&st.core.db)
        .await?;
    let Some(a) = found else {
        // As long as a real check, so the answer's time does not tell the address exists.
        password::dummy_verify(secret.to_owned()).await;
        return Err(invalid_credentials());
    };
    let right = password::verify(secret.to_owned(), a.password_hash.clone())
        .await
        .map_err(ApiError::internal)?;
    let role = sessions::admin_role(&a.role).filter(|_| right);
    let Some(role) = role else {
        return Err(invalid_credentials());
    };
    let token = sessions::sign_in(st, AccountKind::Admin, a.id, &[role]).await?;
    Ok((a, token))
}
