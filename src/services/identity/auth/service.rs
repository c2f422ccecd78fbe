//! Accounts signing up and in: sign-up from a verified code, sign-in with lockout, PIN checks
//! and PIN reset.

use super::super::error::{IdentityError, Result};
use super::super::sessions::store::{self as tokens, ClientInfo};
use super::super::state::IdentityState;
use super::super::users::domain::Handle;
use super::super::users::store::{any_user_by_phone, handle_taken, live_user_by_phone};
use super::domain::{OtpPurpose, Pin};
use super::dto::{AuthResponse, AuthUser, PinResetResponse};
use super::otp;
use crate::core::db::is_unique_violation;
use crate::core::lockout;
use crate::core::password;
use crate::core::session::{Change, EndReason};
use chrono::{DateTime, Utc};
use sea_orm::{ActiveModelTrait, IntoActiveModel, Set};
use switchboard_entities::identity::user;
use uuid::Uuid;

pub struct SignupInput {
    pub temp_token: String,
    pub pin: Pin,
    pub handle: Handle,
    pub name: Option<String>,
}

pub async fn signup(
    st: &IdentityState,
    input: SignupInput,
    client: &ClientInfo,
) -> Result<AuthResponse> {
    let db = &st.core.db;
    let now = st.core.now();
    let phone = otp::peek_temp_token(db, &input.temp_token, OtpPurpose::Signup, now).await?;
    if input.handle.is_reserved() {
        return Err(IdentityError::HandleReserved.into());
    }
    if any_user_by_phone(db, &phone).await?.is_some() {
        return Err(IdentityError::PhoneExists.into());
    }
    if handle_taken(db, &input.handle, None).await? {
        return Err(IdentityError::HandleTaken.into());
    }
    let pin_hash = password::hash(input.pin.expose()).await?;

    let txn = crate::core::db::begin_write(db).await?;
    let phone = otp::consume_temp_token(&txn, &input.temp_token, OtpPurpose::Signup, now).await?;
    let inserted = user::ActiveModel {
        id: Set(Uuid::new_v4()),
        phone: Set(phone.as_str().to_owned()),
        phone_verified: Set(true),
        handle: Set(input.handle.as_str().to_owned()),
        handle_canonical: Set(input.handle.canonical()),
        name: Set(input.name),
        avatar_url: Set(None),
        bio: Set(String::new()),
        country: Set(phone.region().unwrap_or("ZZ").to_owned()),
        language: Set("en".into()),
        pin_hash: Set(pin_hash),
        kyc_status: Set(user::KycStatus::NotStarted),
        kyc_level: Set(None),
        kyc_documents: Set(None),
        kyc_verified_at: Set(None),
        failed_signins: Set(0),
        lock_count: Set(0),
        locked_until: Set(None),
        handle_changed_at: Set(None),
        deleted_at: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&txn)
    .await;
    let created = match inserted {
        Ok(u) => u,
        Err(e) if is_unique_violation(&e) => {
            txn.rollback().await?;
            // Lost a race for the phone or the handle; say which.
            return Err(if any_user_by_phone(db, &phone).await?.is_some() {
                IdentityError::PhoneExists.into()
            } else {
                IdentityError::HandleTaken.into()
            });
        }
        Err(e) => return Err(e.into()),
    };
    let issued = tokens::open_session(st, &txn, created.id, client, now).await?;
    txn.commit().await?;
    tracing::info!(user_id = %created.id, "account created");
    Ok(AuthResponse {
        user: AuthUser::from(&created),
        access_token: issued.tokens.access_token,
        refresh_token: issued.tokens.refresh_token,
        expires_in: issued.tokens.expires_in,
    })
}

/// Fails with ACCOUNT_LOCKED while a lock is in force.
pub fn ensure_unlocked(u: &user::Model, now: DateTime<Utc>) -> Result<()> {
    match lockout::in_force(u.locked_until, now) {
        Some(until) => Err(IdentityError::AccountLocked {
            locked_until: until,
        }
        .into()),
        None => Ok(()),
    }
}

const LOCK: lockout::Columns<user::Column> = lockout::Columns {
    id: user::Column::Id,
    failures: user::Column::FailedSignins,
    lock_count: user::Column::LockCount,
    locked_until: user::Column::LockedUntil,
};

/// Verifies the PIN of a live account, counting failures toward the lockout.
pub async fn check_pin(st: &IdentityState, u: &user::Model, pin: &Pin) -> Result<()> {
    let now = st.core.now();
    ensure_unlocked(u, now)?;
    let right = password::verify(pin.expose(), u.pin_hash.clone()).await?;
    if right && u.failed_signins == 0 && u.lock_count == 0 {
        return Ok(());
    }
    if right {
        LOCK.clear::<user::Entity>(&st.core.db, u.id).await?;
    } else if let Some(secs) = LOCK
        .record_failure::<user::Entity>(&st.core.db, &st.cfg.lockout, u.id, now)
        .await?
    {
        tracing::warn!(user_id = %u.id, lock_secs = secs, "account locked after failed PIN attempts");
    }
    // The lockout counters are part of the cached account: the next PIN check must see them.
    st.sessions
        .changed(Change::AccountChanged { account: u.id })
        .await;
    if right {
        Ok(())
    } else {
        Err(IdentityError::InvalidCredentials.into())
    }
}

pub async fn signin(
    st: &IdentityState,
    u: user::Model,
    pin: &Pin,
    client: &ClientInfo,
) -> Result<AuthResponse> {
    check_pin(st, &u, pin).await?;
    let now = st.core.now();
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let issued = tokens::open_session(st, &txn, u.id, client, now).await?;
    txn.commit().await?;
    Ok(AuthResponse {
        user: AuthUser::from(&u),
        access_token: issued.tokens.access_token,
        refresh_token: issued.tokens.refresh_token,
        expires_in: issued.tokens.expires_in,
    })
}

pub async fn reset_pin(
    st: &IdentityState,
    temp: &str,
    new_pin: Pin,
    client: &ClientInfo,
) -> Result<PinResetResponse> {
    let db = &st.core.db;
    let now = st.core.now();
    let phone = otp::peek_temp_token(db, temp, OtpPurpose::PinReset, now).await?;
    let u = live_user_by_phone(db, &phone)
        .await?
        .ok_or(IdentityError::InvalidTempToken)?;
    let pin_hash = password::hash(new_pin.expose()).await?;
    let txn = crate::core::db::begin_write(db).await?;
    otp::consume_temp_token(&txn, temp, OtpPurpose::PinReset, now).await?;
    let mut am = u.clone().into_active_model();
    am.pin_hash = Set(pin_hash);
    am.failed_signins = Set(0);
    am.lock_count = Set(0);
    am.locked_until = Set(None);
    am.updated_at = Set(now);
    am.update(&txn).await?;
    // A new PIN signs out every device that knew the old one.
    tokens::revoke_all(&txn, u.id, now).await?;
    let issued = tokens::open_session(st, &txn, u.id, client, now).await?;
    txn.commit().await?;
    st.sessions
        .changed(Change::AccountEnded {
            account: u.id,
            reason: EndReason::CredentialsReset,
        })
        .await;
    Ok(PinResetResponse {
        message: "PIN has been reset; other sessions were signed out".into(),
        access_token: issued.tokens.access_token,
        refresh_token: issued.tokens.refresh_token,
        expires_in: issued.tokens.expires_in,
    })
}
