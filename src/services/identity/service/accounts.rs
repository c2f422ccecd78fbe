//! Accounts: sign-up, sign-in with lockout, PIN reset, profile, handle, deletion.

use super::super::domain::{Handle, OtpPurpose, Pin};
use super::super::dto::{AuthResponse, AuthUser, HandleChanged, PinResetResponse};
use super::super::error::{IdentityError, Result};
use super::super::IdentityState;
use super::tokens::{self, ClientInfo};
use super::{any_user_by_phone, live_user_by_phone, otp};
use crate::core::db::is_unique_violation;
use crate::core::lockout;
use crate::core::password;
use crate::core::session::{Change, EndReason};
use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, IntoActiveModel, QueryFilter, Set,
};
use switchboard_entities::identity::{temp_token, user};
use uuid::Uuid;

pub struct SignupInput {
    pub temp_token: String,
    pub pin: Pin,
    pub handle: Handle,
    pub name: Option<String>,
}

/// Whether some other account (live or awaiting deletion) holds a handle that looks like it.
pub async fn handle_taken(
    db: &impl ConnectionTrait,
    handle: &Handle,
    except: Option<Uuid>,
) -> Result<bool> {
    let mut q = user::Entity::find().filter(user::Column::HandleCanonical.eq(handle.canonical()));
    if let Some(id) = except {
        q = q.filter(user::Column::Id.ne(id));
    }
    Ok(q.one(db).await?.is_some())
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
        kyc_status: Set("none".into()),
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
        .changed(Change::AccountChanged { account: u.id });
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
    st.sessions.changed(Change::AccountEnded {
        account: u.id,
        reason: EndReason::CredentialsReset,
    });
    Ok(PinResetResponse {
        message: "PIN has been reset; other sessions were signed out".into(),
        access_token: issued.tokens.access_token,
        refresh_token: issued.tokens.refresh_token,
        expires_in: issued.tokens.expires_in,
    })
}

pub async fn change_handle(
    st: &IdentityState,
    u: &user::Model,
    new: Handle,
    pin: &Pin,
) -> Result<HandleChanged> {
    let now = st.core.now();
    let cooldown = Duration::days(st.cfg.handle_cooldown_days);
    if new.as_str() == u.handle {
        return Err(IdentityError::InvalidHandle("that is already your handle".into()).into());
    }
    if new.is_reserved() {
        return Err(IdentityError::HandleReserved.into());
    }
    if let Some(last) = u.handle_changed_at {
        if last + cooldown > now {
            return Err(IdentityError::HandleCooldown {
                next_change_available: last + cooldown,
            }
            .into());
        }
    }
    check_pin(st, u, pin).await?;
    let db = &st.core.db;
    if handle_taken(db, &new, Some(u.id)).await? {
        return Err(IdentityError::HandleTaken.into());
    }
    let res = user::Entity::update_many()
        .col_expr(user::Column::Handle, Expr::value(new.as_str()))
        .col_expr(user::Column::HandleCanonical, Expr::value(new.canonical()))
        .col_expr(user::Column::HandleChangedAt, Expr::value(now))
        .col_expr(user::Column::UpdatedAt, Expr::value(now))
        .filter(user::Column::Id.eq(u.id))
        .exec(db)
        .await;
    if res.is_ok() {
        st.sessions
            .changed(Change::AccountChanged { account: u.id });
    }
    match res {
        Ok(_) => Ok(HandleChanged {
            old_handle: u.handle.clone(),
            new_handle: new.as_str().to_owned(),
            next_change_available: now + cooldown,
        }),
        Err(e) if is_unique_violation(&e) => Err(IdentityError::HandleTaken.into()),
        Err(e) => Err(e.into()),
    }
}

/// Soft-deletes: sessions end now; the phone and handle stay held until the hard deletion.
pub async fn delete(st: &IdentityState, u: &user::Model, pin: &Pin) -> Result<DateTime<Utc>> {
    check_pin(st, u, pin).await?;
    let now = st.core.now();
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    user::Entity::update_many()
        .col_expr(user::Column::DeletedAt, Expr::value(now))
        .col_expr(user::Column::UpdatedAt, Expr::value(now))
        .filter(user::Column::Id.eq(u.id))
        .exec(&txn)
        .await?;
    tokens::revoke_all(&txn, u.id, now).await?;
    txn.commit().await?;
    st.sessions.changed(Change::AccountEnded {
        account: u.id,
        reason: EndReason::AccountDeleted,
    });
    tracing::info!(user_id = %u.id, "account scheduled for deletion");
    Ok(now)
}

/// Hard-deletes accounts past their grace period (sessions, tokens and KYC rows cascade),
/// and drops spent codes and tokens. Returns the number of accounts removed.
pub async fn purge(st: &IdentityState) -> Result<u64> {
    let db = &st.core.db;
    let now = st.core.now();
    let cutoff = now - Duration::days(st.cfg.hard_delete_after_days);
    let doomed = user::Entity::find()
        .filter(user::Column::DeletedAt.lte(cutoff))
        .all(db)
        .await?;
    let phones: Vec<String> = doomed.iter().map(|u| u.phone.clone()).collect();
    let txn = crate::core::db::begin_write(db).await?;
    let removed = user::Entity::delete_many()
        .filter(user::Column::DeletedAt.lte(cutoff))
        .exec(&txn)
        .await?
        .rows_affected;
    let codes = super::otp::codes(st);
    codes.delete_for(&txn, phones.clone()).await?;
    temp_token::Entity::delete_many()
        .filter(temp_token::Column::Phone.is_in(phones))
        .exec(&txn)
        .await?;
    let stale = now - Duration::days(1);
    codes.purge_expired(&txn, stale).await?;
    temp_token::Entity::delete_many()
        .filter(temp_token::Column::ExpiresAt.lt(stale))
        .exec(&txn)
        .await?;
    txn.commit().await?;
    if removed > 0 {
        tracing::info!(
            accounts = removed,
            "hard-deleted accounts past their grace period"
        );
    }
    Ok(removed)
}
