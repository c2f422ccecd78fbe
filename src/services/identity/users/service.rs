//! What an account owner does to the account, and its end: a handle change and a deletion
//! (each behind the PIN), and the purge of accounts past their grace period.

use super::super::auth::domain::Pin;
use super::super::auth::otp;
use super::super::auth::service::check_pin;
use super::super::error::{IdentityError, Result};
use super::super::sessions::store as tokens;
use super::super::state::IdentityState;
use super::domain::Handle;
use super::dto::HandleChanged;
use super::store::handle_taken;
use crate::core::db::is_unique_violation;
use crate::core::session::{Change, EndReason};
use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use switchboard_entities::identity::{temp_token, user};

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
            .changed(Change::AccountChanged { account: u.id })
            .await;
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
    st.sessions
        .changed(Change::AccountEnded {
            account: u.id,
            reason: EndReason::AccountDeleted,
        })
        .await;
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
    let codes = otp::codes(st);
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
