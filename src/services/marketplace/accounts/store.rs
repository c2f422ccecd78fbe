//! Accounts: sign-up with phone verification, login, password reset, and the first
//! administrator. Answers that could tell whether a phone has an account are the same for
//! both where the spec lets them be (forgot-password, resend-otp, login).

use crate::core::admin::AdminError;
use crate::core::code_limits::Refused;
use crate::core::db::is_unique_violation;
use crate::core::error::{secs_until, ApiError};
use crate::core::lockout;
use crate::core::password;
use crate::core::phone::PhoneNumber;
use crate::core::secrets::{random_token, sha256_hex};
use crate::core::session::{Change, EndReason};
use crate::services::marketplace::accounts::domain::{Email, OtpPurpose, Password};
use crate::services::marketplace::accounts::dto::{AuthResult, ResetToken};
use crate::services::marketplace::accounts::{otp, tokens};
use crate::services::marketplace::domain;
use crate::services::marketplace::error::{MarketplaceError, Result};
use crate::services::marketplace::state::MarketplaceState;
use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::DbErr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait,
    IntoActiveModel, QueryFilter, Set,
};
use std::collections::HashMap;
use switchboard_entities::marketplace::{reset_token, user};
use uuid::Uuid;

pub struct SignupInput {
    pub phone: PhoneNumber,
    pub email: Option<Email>,
    pub password: Password,
    pub name: Option<String>,
}

async fn auth_result(st: &MarketplaceState, u: user::Model) -> Result<AuthResult> {
    let issued = tokens::issue(st, &u).await?;
    Ok(AuthResult {
        user: u.into(),
        token: issued.access,
        refresh_token: issued.refresh,
    })
}

fn new_user(
    phone: &PhoneNumber,
    password_hash: String,
    role: &str,
    verified: bool,
    now: DateTime<Utc>,
) -> user::ActiveModel {
    user::ActiveModel {
        id: Set(Uuid::new_v4()),
        phone: Set(phone.as_str().to_owned()),
        email: Set(None),
        name: Set(None),
        password_hash: Set(password_hash),
        role: Set(role.to_owned()),
        is_phone_verified: Set(verified),
        failed_logins: Set(0),
        lock_count: Set(0),
        locked_until: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
    }
}

async fn insert_user(db: &DatabaseConnection, row: user::ActiveModel) -> Result<user::Model> {
    row.insert(db).await.map_err(|e| {
        if is_unique_violation(&e) {
            MarketplaceError::PhoneExists.into()
        } else {
            ApiError::from(e)
        }
    })
}

/// A new unverified `user` with tokens at once (the spec), and a code sent to the phone.
pub async fn signup(st: &MarketplaceState, input: SignupInput) -> Result<AuthResult> {
    let db = &st.core.db;
    if user_by_phone(db, &input.phone).await?.is_some() {
        return Err(MarketplaceError::PhoneExists.into());
    }
    let hash = password::hash(input.password.expose()).await?;
    let mut row = new_user(&input.phone, hash, "user", false, st.core.now());
    row.email = Set(input.email.map(Email::into_inner));
    row.name = Set(input.name);
    let created = insert_user(db, row).await?;
    otp::send(st, &input.phone, OtpPurpose::Signup).await?;
    auth_result(st, created).await
}

pub async fn verify_signup(
    st: &MarketplaceState,
    phone: &PhoneNumber,
    code: &str,
) -> Result<AuthResult> {
    otp::verify(st, phone, OtpPurpose::Signup, code).await?;
    let u = user_by_phone(&st.core.db, phone)
        .await?
        .ok_or(MarketplaceError::InvalidOtp {
            attempts_remaining: 0,
        })?;
    let mut row = u.into_active_model();
    row.is_phone_verified = Set(true);
    row.updated_at = Set(st.core.now());
    let u = row.update(&st.core.db).await?;
    st.sessions
        .changed(Change::AccountChanged { account: u.id })
        .await;
    auth_result(st, u).await
}

const LOCK: lockout::Columns<user::Column> = lockout::Columns {
    id: user::Column::Id,
    failures: user::Column::FailedLogins,
    lock_count: user::Column::LockCount,
    locked_until: user::Column::LockedUntil,
};

/// Checks the password, counting wrong ones toward the account's lockout (`core::lockout`):
/// from whatever addresses the guesses come, an account takes `max_failures` in a row, then
/// locks for longer each time.
pub async fn login(
    st: &MarketplaceState,
    phone: &PhoneNumber,
    secret: String,
) -> Result<AuthResult> {
    let Some(u) = user_by_phone(&st.core.db, phone).await? else {
        // Same work as a real check, so the time taken does not reveal the account.
        password::dummy_verify(secret).await;
        return Err(MarketplaceError::InvalidCredentials.into());
    };
    let now = st.core.now();
    if let Some(until) = lockout::in_force(u.locked_until, now) {
        return Err(MarketplaceError::AccountLocked { until, now }.into());
    }
    if !password::verify(secret, u.password_hash.clone()).await? {
        let lock = &st.cfg.lockout;
        if let Some(secs) = LOCK
            .record_failure::<user::Entity>(&st.core.db, lock, u.id, now)
            .await?
        {
            tracing::warn!(user_id = %u.id, lock_secs = secs, "account locked after wrong passwords");
        }
        return Err(MarketplaceError::InvalidCredentials.into());
    }
    if u.failed_logins != 0 || u.lock_count != 0 {
        LOCK.clear::<user::Entity>(&st.core.db, u.id).await?;
    }
    auth_result(st, u).await
}

/// Sends a code of `purpose` when the phone has an account that can use one: an unverified
/// account for signup, any account for a password reset. Otherwise nothing is sent and the
/// caller answers the same. The code limits (`core::code_limits`) count alike either way,
/// so neither their answers nor their budgets tell whether the phone has an account: what
/// they refuse (the cooldown) or what fails spends nothing.
pub async fn send_code(
    req: &actix_web::HttpRequest,
    st: &MarketplaceState,
    phone: &PhoneNumber,
    purpose: OtpPurpose,
) -> Result<()> {
    let send = async {
        let eligible = match (user_by_phone(&st.core.db, phone).await?, purpose) {
            (Some(u), OtpPurpose::Signup) => !u.is_phone_verified,
            (Some(_), OtpPurpose::PasswordReset) => true,
            (None, _) => false,
        };
        if eligible {
            otp::send(st, phone, purpose).await?;
        }
        Ok(())
    };
    st.cfg
        .code_limits()
        .send(req, phone, purpose.as_str(), send)
        .await
        .map_err(|refused| match refused {
            Refused::Cooldown { until, now } => MarketplaceError::OtpCooldown { until, now }.into(),
            // No ceiling per calling code is set here; the arm keeps the match whole.
            Refused::CallingCode { until, now } => ApiError::rate_limited(secs_until(until, now)),
            Refused::Other(e) => e,
        })
}

/// Exchanges a password-reset code for a single-use temporary token.
pub async fn verify_forgot(
    st: &MarketplaceState,
    phone: &PhoneNumber,
    code: &str,
) -> Result<ResetToken> {
    otp::verify(st, phone, OtpPurpose::PasswordReset, code).await?;
    let u = user_by_phone(&st.core.db, phone)
        .await?
        .ok_or(MarketplaceError::InvalidOtp {
            attempts_remaining: 0,
        })?;
    let now = st.core.now();
    let token = random_token(32);
    reset_token::ActiveModel {
        id: Set(Uuid::new_v4()),
        user_id: Set(u.id),
        token_hash: Set(sha256_hex(token.as_bytes())),
        expires_at: Set(now + Duration::seconds(st.cfg.reset_token_ttl_secs)),
        used_at: Set(None),
        created_at: Set(now),
    }
    .insert(&st.core.db)
    .await?;
    Ok(ResetToken {
        token,
        expires_in: st.cfg.reset_token_ttl_secs,
    })
}

/// Sets the new password once per token and ends every session of the account.
pub async fn reset_password(st: &MarketplaceState, token: &str, new: Password) -> Result<()> {
    let now = st.core.now();
    let hash = password::hash(new.expose()).await?;
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let row = reset_token::Entity::find()
        .filter(reset_token::Column::TokenHash.eq(sha256_hex(token.as_bytes())))
        .filter(reset_token::Column::UsedAt.is_null())
        .filter(reset_token::Column::ExpiresAt.gt(now))
        .one(&txn)
        .await?
        .ok_or(MarketplaceError::InvalidResetToken)?;
    let used = reset_token::Entity::update_many()
        .col_expr(reset_token::Column::UsedAt, Expr::value(now))
        .filter(reset_token::Column::Id.eq(row.id))
        .filter(reset_token::Column::UsedAt.is_null())
        .exec(&txn)
        .await?;
    if used.rows_affected != 1 {
        return Err(MarketplaceError::InvalidResetToken.into());
    }
    set_password(&txn, row.user_id, hash, now).await?;
    tokens::revoke_all(&txn, row.user_id, now).await?;
    txn.commit().await?;
    st.sessions
        .changed(Change::AccountEnded {
            account: row.user_id,
            reason: EndReason::CredentialsReset,
        })
        .await;
    Ok(())
}

async fn set_password(
    db: &impl ConnectionTrait,
    user_id: Uuid,
    hash: String,
    now: DateTime<Utc>,
) -> Result<()> {
    // A new password lifts any lock: its owner proved the phone.
    user::Entity::update_many()
        .col_expr(user::Column::PasswordHash, Expr::value(hash))
        .col_expr(user::Column::FailedLogins, Expr::value(0))
        .col_expr(user::Column::LockCount, Expr::value(0))
        .col_expr(
            user::Column::LockedUntil,
            Expr::value(None::<DateTime<Utc>>),
        )
        .col_expr(user::Column::UpdatedAt, Expr::value(now))
        .filter(user::Column::Id.eq(user_id))
        .exec(db)
        .await?;
    Ok(())
}

/// `switchboard admin create-marketplace-admin`: the account of `phone` becomes a verified
/// admin with this password (created when missing), so running it again changes nothing
/// but the password. Answers the user id.
pub async fn create_admin(
    db: &DatabaseConnection,
    now: DateTime<Utc>,
    phone: &str,
    secret: &str,
    name: Option<&str>,
) -> Result<Uuid, AdminError> {
    let invalid = |e: MarketplaceError| AdminError::Invalid(e.to_string());
    let phone = domain::phone(phone).map_err(invalid)?;
    let secret = Password::parse("password", secret).map_err(invalid)?;
    let name = name.map(domain::name).transpose().map_err(invalid)?;
    let hash = password::hash(secret.expose()).await?;
    match user_by_phone(db, &phone).await? {
        Some(u) => {
            let id = u.id;
            let mut row = u.into_active_model();
            row.role = Set("admin".into());
            row.is_phone_verified = Set(true);
            row.password_hash = Set(hash);
            if name.is_some() {
                row.name = Set(name);
            }
            row.updated_at = Set(now);
            row.update(db).await?;
            Ok(id)
        }
        None => {
            let mut row = new_user(&phone, hash, "admin", true, now);
            row.name = Set(name);
            Ok(row.insert(db).await?.id)
        }
    }
}

/// The account of a phone number, if any.
pub async fn user_by_phone(
    db: &impl ConnectionTrait,
    phone: &PhoneNumber,
) -> Result<Option<user::Model>, DbErr> {
    user::Entity::find()
        .filter(user::Column::Phone.eq(phone.as_str()))
        .one(db)
        .await
}

/// The accounts of `ids` by id, for lists that show each row's user.
pub async fn users_by_id(
    db: &impl ConnectionTrait,
    ids: Vec<Uuid>,
) -> Result<HashMap<Uuid, user::Model>, DbErr> {
    Ok(user::Entity::find()
        .filter(user::Column::Id.is_in(ids))
        .all(db)
        .await?
        .into_iter()
        .map(|u| (u.id, u))
        .collect())
}
