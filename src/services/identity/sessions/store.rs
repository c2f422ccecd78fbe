//! Sessions and tokens: a session is one refresh-token family. Access tokens are 15-minute
//! JWTs naming their session; refresh tokens are opaque, stored hashed, rotated on every use,
//! and reuse of a rotated one revokes the whole family.

use super::super::error::{IdentityError, Result};
use super::super::state::IdentityState;
use super::dto::TokenPair;
use crate::core::refresh::{rotate_once, RotationColumns};
use crate::core::secrets::{random_token, sha256_hex};
use crate::core::session::{Change, EndReason, SessionKey};
use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::{Expr, Query};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter,
    QueryOrder, Set,
};
use switchboard_entities::identity::{refresh_token, session, user};
use uuid::Uuid;

pub const ACCESS: &str = "access";

/// Where a session was opened from.
#[derive(Debug, Clone)]
pub struct ClientInfo {
    pub ip: String,
    pub device_name: String,
    pub platform: String,
}

pub struct Issued {
    pub tokens: TokenPair,
}

/// Opens a session for `user_id` and issues its first token pair.
pub async fn open_session(
    st: &IdentityState,
    txn: &impl ConnectionTrait,
    user_id: Uuid,
    client: &ClientInfo,
    now: DateTime<Utc>,
) -> Result<Issued> {
    let session_id = Uuid::new_v4();
    session::ActiveModel {
        id: Set(session_id),
        user_id: Set(user_id),
        device_name: Set(client.device_name.clone()),
        platform: Set(client.platform.clone()),
        ip_address: Set(client.ip.clone()),
        created_at: Set(now),
        last_used_at: Set(now),
        expires_at: Set(refresh_expiry(st, now, now)),
        revoked_at: Set(None),
    }
    .insert(txn)
    .await?;
    let refresh = insert_refresh(txn, session_id, now).await?;
    Ok(Issued {
        tokens: pair(st, user_id, session_id, refresh, now)?,
    })
}

/// When a refresh token issued at `now` stops working: its own 30 days, cut short by the
/// session's absolute lifetime when one is configured. The session row carries the expiry of
/// its one live refresh token.
fn refresh_expiry(st: &IdentityState, opened: DateTime<Utc>, now: DateTime<Utc>) -> DateTime<Utc> {
    let auth = &st.core.settings.auth;
    let own = now + Duration::days(auth.refresh_ttl_days);
    match auth.session_max_days {
        0 => own,
        max => own.min(opened + Duration::days(max)),
    }
}

async fn insert_refresh(
    txn: &impl ConnectionTrait,
    session_id: Uuid,
    now: DateTime<Utc>,
) -> Result<String> {
    let token = random_token(32);
    refresh_token::ActiveModel {
        id: Set(Uuid::new_v4()),
        session_id: Set(session_id),
        token_hash: Set(sha256_hex(token.as_bytes())),
        created_at: Set(now),
        rotated_at: Set(None),
    }
    .insert(txn)
    .await?;
    Ok(token)
}

fn pair(
    st: &IdentityState,
    user_id: Uuid,
    session_id: Uuid,
    refresh: String,
    now: DateTime<Utc>,
) -> Result<TokenPair> {
    let ttl = st.core.settings.auth.access_ttl_secs;
    let access = st.core.jwt.issue(
        ACCESS,
        &user_id.to_string(),
        Some(&session_id.to_string()),
        now,
        ttl,
    )?;
    Ok(TokenPair {
        access_token: access,
        refresh_token: refresh,
        expires_in: ttl,
    })
}

/// Revokes one session (idempotent); its access tokens stop working on the next request.
async fn revoke_session(st: &IdentityState, key: SessionKey, reason: EndReason) -> Result<bool> {
    let res = session::Entity::update_many()
        .col_expr(session::Column::RevokedAt, Expr::value(st.core.now()))
        .filter(session::Column::Id.eq(key.session))
        .filter(session::Column::RevokedAt.is_null())
        .exec(&st.core.db)
        .await?;
    st.sessions
        .changed(Change::SessionEnded { key, reason })
        .await;
    Ok(res.rows_affected > 0)
}

/// The session key of a session row.
fn key_of(sess: &session::Model) -> SessionKey {
    SessionKey {
        account: sess.user_id,
        session: sess.id,
    }
}

/// Revokes every active session of a user; returns how many were active. The caller
/// announces `Change::AccountEnded` once this has committed.
pub async fn revoke_all(
    db: &impl ConnectionTrait,
    user_id: Uuid,
    now: DateTime<Utc>,
) -> Result<u64> {
    let res = session::Entity::update_many()
        .col_expr(session::Column::RevokedAt, Expr::value(now))
        .filter(session::Column::UserId.eq(user_id))
        .filter(session::Column::RevokedAt.is_null())
        .filter(session::Column::ExpiresAt.gt(now))
        .exec(db)
        .await?;
    Ok(res.rows_affected)
}

pub async fn refresh(st: &IdentityState, token: &str) -> Result<TokenPair> {
    let db = &st.core.db;
    let now = st.core.now();
    let hash = sha256_hex(token.as_bytes());
    let row = refresh_token::Entity::find()
        .filter(refresh_token::Column::TokenHash.eq(hash))
        .one(db)
        .await?
        .ok_or(IdentityError::InvalidRefreshToken)?;
    let sess = session::Entity::find_by_id(row.session_id)
        .one(db)
        .await?
        .ok_or(IdentityError::InvalidRefreshToken)?;
    if sess.revoked_at.is_some() {
        return Err(IdentityError::InvalidRefreshToken.into());
    }
    if row.rotated_at.is_some() {
        tracing::warn!(session_id = %sess.id, "rotated refresh token reused; revoking its family");
        revoke_session(st, key_of(&sess), EndReason::RefreshTokenReused).await?;
        return Err(IdentityError::InvalidRefreshToken.into());
    }
    if sess.expires_at <= now {
        return Err(IdentityError::RefreshTokenExpired.into());
    }
    let alive = user::Entity::find_by_id(sess.user_id)
        .filter(user::Column::DeletedAt.is_null())
        .one(db)
        .await?
        .is_some();
    if !alive {
        return Err(IdentityError::InvalidRefreshToken.into());
    }
    let txn = crate::core::db::begin_write(db).await?;
    let columns = RotationColumns {
        id: refresh_token::Column::Id,
        rotated_at: refresh_token::Column::RotatedAt,
    };
    if !rotate_once::<refresh_token::Entity>(&txn, columns, row.id, Condition::all(), now).await? {
        txn.rollback().await?;
        // A concurrent request rotated it first: that is reuse too.
        revoke_session(st, key_of(&sess), EndReason::RefreshTokenReused).await?;
        return Err(IdentityError::InvalidRefreshToken.into());
    }
    let new_refresh = insert_refresh(&txn, sess.id, now).await?;
    session::Entity::update_many()
        .col_expr(session::Column::LastUsedAt, Expr::value(now))
        .col_expr(
            session::Column::ExpiresAt,
            Expr::value(refresh_expiry(st, sess.created_at, now)),
        )
        .filter(session::Column::Id.eq(sess.id))
        .exec(&txn)
        .await?;
    txn.commit().await?;
    pair(st, sess.user_id, sess.id, new_refresh, now)
}

/// Revokes the session the refresh token belongs to, if it is the caller's.
pub async fn logout(st: &IdentityState, user_id: Uuid, token: &str) -> Result<()> {
    let db = &st.core.db;
    let hash = sha256_hex(token.as_bytes());
    let row = refresh_token::Entity::find()
        .filter(refresh_token::Column::TokenHash.eq(hash))
        .one(db)
        .await?
        .ok_or(IdentityError::InvalidRefreshToken)?;
    let sess = session::Entity::find_by_id(row.session_id)
        .filter(session::Column::UserId.eq(user_id))
        .filter(session::Column::RevokedAt.is_null())
        .one(db)
        .await?
        .ok_or(IdentityError::InvalidRefreshToken)?;
    revoke_session(st, key_of(&sess), EndReason::LoggedOut).await?;
    Ok(())
}

pub async fn active_sessions(st: &IdentityState, user_id: Uuid) -> Result<Vec<session::Model>> {
    let now = st.core.now();
    Ok(session::Entity::find()
        .filter(session::Column::UserId.eq(user_id))
        .filter(session::Column::RevokedAt.is_null())
        .filter(session::Column::ExpiresAt.gt(now))
        .order_by_desc(session::Column::LastUsedAt)
        .all(&st.core.db)
        .await?)
}

/// Revokes one of the caller's own sessions; another account's session is forbidden.
pub async fn revoke_own(st: &IdentityState, user_id: Uuid, session_id: Uuid) -> Result<()> {
    let db = &st.core.db;
    let found = session::Entity::find_by_id(session_id)
        .filter(session::Column::RevokedAt.is_null())
        .one(db)
        .await?
        .ok_or_else(|| IdentityError::NotFound("session not found".into()))?;
    if found.user_id != user_id {
        return Err(
            IdentityError::Forbidden("this session belongs to another account".into()).into(),
        );
    }
    revoke_session(st, key_of(&found), EndReason::Revoked).await?;
    Ok(())
}

/// Deletes refresh tokens rotated more than `retention.refresh_tokens_days` ago and every token
/// of a session revoked or expired that long ago. Until then a reused rotated token is still
/// recognised and revokes its session. Returns the number of tokens removed.
pub async fn purge_spent(st: &IdentityState) -> Result<u64> {
    let cutoff = st.core.now()
        - Duration::days(std::cmp::max(
            st.core.settings.retention.refresh_tokens_days,
            0,
        ));
    let ended_sessions = Query::select()
        .column(session::Column::Id)
        .from(session::Entity)
        .cond_where(
            Condition::any()
                .add(session::Column::RevokedAt.lt(cutoff))
                .add(session::Column::ExpiresAt.lt(cutoff)),
        )
        .to_owned();
    Ok(refresh_token::Entity::delete_many()
        .filter(
            Condition::any()
                .add(refresh_token::Column::RotatedAt.lt(cutoff))
                .add(refresh_token::Column::SessionId.in_subquery(ended_sessions)),
        )
        .exec(&st.core.db)
        .await?
        .rows_affected)
}
