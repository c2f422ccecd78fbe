//! Administrators' accounts: the first one seeded from `[services.advertising.admin]`,
//! more made by the operator's command, and sign-in by email and password (argon2id off
//! the executor; a wrong email and a wrong password answer alike), then a TOTP code when
//! the administrator has one, all counted toward the address's lockout.

use super::super::error::{AdvertisingError, Result};
use super::super::fields as domain;
use super::super::sessions::{self, AccountKind};
use super::super::settings::AdminSeed;
use super::super::signin_guard;
use super::super::state::AdvertisingState;
use super::totp::{self, Second};
use crate::core::admin::AdminError;
use crate::core::error::ApiError;
use crate::core::password;
use chrono::{DateTime, Utc};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DatabaseConnection, DbErr, EntityTrait,
    QueryFilter, Set, SqlErr,
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

/// Checks the email, password and (when the administrator has it on) TOTP or recovery
/// code: the administrator and a token. Every attempt counts toward the address's lockout
/// (`signin_guard`) until one succeeds; an unknown address answers as a known one with a
/// wrong password.
pub async fn login(
    st: &AdvertisingState,
    email: &str,
    secret: &str,
    second: Option<Second<'_>>,
) -> Result<(admin::Model, String)> {
    let email = email.trim().to_ascii_lowercase();
    let attempt = signin_guard::begin(st, AccountKind::Admin, &email).await?;
    let found = admin::Entity::find()
        .filter(admin::Column::Email.eq(email))
        .one(&st.core.db)
        .await?;
    let stored = found.as_ref().map(|a| a.password_hash.clone());
    let right = password::verify_or_dummy(secret.to_owned(), stored).await?;
    let (a, role) = match found.map(|a| (sessions::admin_role(&a.role), a)) {
        Some((Some(role), a)) if right => (a, role),
        other => {
            let owner = other.map(|(_, a)| (AccountKind::Admin, a.id));
            attempt.failed(st, owner).await?;
            return Err(invalid_credentials());
        }
    };
    let owner = Some((AccountKind::Admin, a.id));
    match totp::enabled(&st.core.db, a.id).await? {
        Some(t) => {
            let Some(second) = second else {
                attempt.failed(st, owner).await?;
                return Err(AdvertisingError::TotpRequired.into());
            };
            if !totp::check(st, &t, second).await? {
                attempt.failed(st, owner).await?;
                return Err(AdvertisingError::InvalidTotp.into());
            }
        }
        None if st.cfg.require_admin_totp => {
            // The password was right; the only way on is to enrol.
            attempt.succeeded(st).await?;
            return Err(AdvertisingError::TotpEnrolmentRequired {
                enrolment_token: totp::enrolment_token(st, a.id),
            }
            .into());
        }
        None => {}
    }
    attempt.succeeded(st).await?;
    let token = sessions::sign_in(st, AccountKind::Admin, a.id, &[role]).await?;
    Ok((a, token))
}

/// The administrator `id`, if there is one.
pub async fn find(
    db: &impl ConnectionTrait,
    id: Uuid,
) -> std::result::Result<Option<admin::Model>, DbErr> {
    admin::Entity::find_by_id(id).one(db).await
}
