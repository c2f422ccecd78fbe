//! Sign-ins: each is a session row (its id the token's `sid`), live while neither revoked
//! nor expired; the token's `typ` names the kind of account (`poster`, `advertiser`,
//! `admin`), and the session's account gives the roles, so one kind is never taken for
//! another. Every bearer request asks `core::session` whether the session still holds, so a
//! logout, a reset or a ban counts from the next request.

use super::error::Result;
use super::state::AdvertisingState;
use crate::core::auth::{Bearer, Role, Roles};
use crate::core::error::ApiError;
use crate::core::session::{Change, EndReason, Live, SessionKey, SessionSource};
use async_trait::async_trait;
use chrono::Duration;
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter, Set};
use std::sync::Arc;
use switchboard_entities::advertising::poster::PosterStatus;
use switchboard_entities::advertising::{admin, advertiser, poster, session};
use uuid::Uuid;

pub use switchboard_entities::advertising::session::AccountKind;

/// Every `typ` this service's tokens carry.
pub const TOKEN_TYPES: &[&str] = AccountKind::WORDS;

/// How long a token of this kind lives (a setting each).
fn ttl_secs(kind: AccountKind, st: &AdvertisingState) -> i64 {
    match kind {
        AccountKind::Poster => st.cfg.poster_token_ttl_secs,
        AccountKind::Advertiser => st.cfg.advertiser_token_ttl_secs,
        AccountKind::Admin => st.cfg.admin_token_ttl_secs,
    }
}

/// An administrator's role as stored (`admin`, `moderator`, `finance`).
pub fn admin_role(stored: &str) -> Option<Role> {
    match stored {
        "admin" => Some(Role::Admin),
        "moderator" => Some(Role::Moderator),
        "finance" => Some(Role::Finance),
        _ => None,
    }
}

/// Starts a session for the account and answers its token.
pub async fn sign_in(
    st: &AdvertisingState,
    kind: AccountKind,
    account: Uuid,
    roles: &[Role],
) -> Result<String> {
    let now = st.core.now();
    let ttl = ttl_secs(kind, st);
    let id = Uuid::new_v4();
    session::ActiveModel {
        id: Set(id),
        kind: Set(kind),
        account_id: Set(account),
        expires_at: Set(now + Duration::seconds(ttl)),
        revoked_at: Set(None),
        created_at: Set(now),
    }
    .insert(&st.core.db)
    .await?;
    Ok(st.core.jwt.issue_with_roles(
        kind.as_str(),
        &account.to_string(),
        Some(&id.to_string()),
        roles,
        now,
        ttl,
    )?)
}

/// Starts a poster's session and answers its token.
pub async fn sign_in_poster(st: &AdvertisingState, p: &poster::Model) -> Result<String> {
    sign_in(st, AccountKind::Poster, p.id, &[Role::Poster]).await
}

/// Ends one session: its token stops working on the next request.
pub async fn end(st: &AdvertisingState, key: SessionKey, reason: EndReason) -> Result<()> {
    session::Entity::update_many()
        .col_expr(session::Column::RevokedAt, Expr::value(st.core.now()))
        .filter(session::Column::Id.eq(key.session))
        .filter(session::Column::AccountId.eq(key.account))
        .filter(session::Column::RevokedAt.is_null())
        .exec(&st.core.db)
        .await?;
    st.sessions
        .changed(Change::SessionEnded { key, reason })
        .await;
    Ok(())
}

/// Ends every session of the account (a password reset, a ban): all its tokens stop
/// working on the next request.
pub async fn end_all(st: &AdvertisingState, account: Uuid, reason: EndReason) -> Result<()> {
    session::Entity::update_many()
        .col_expr(session::Column::RevokedAt, Expr::value(st.core.now()))
        .filter(session::Column::AccountId.eq(account))
        .filter(session::Column::RevokedAt.is_null())
        .exec(&st.core.db)
        .await?;
    st.sessions
        .changed(Change::AccountEnded { account, reason })
        .await;
    Ok(())
}

/// The platform's sessions: a session row not revoked nor expired, of an account that
/// exists (a poster not banned). The account snapshot is the account's row.
pub struct Source {
    pub db: DatabaseConnection,
    pub clock: crate::core::clock::SharedClock,
}

#[async_trait]
impl SessionSource for Source {
    async fn load(&self, key: SessionKey) -> Result<Option<Live>, ApiError> {
        let Some(s) = session::Entity::find_by_id(key.session)
            .one(&self.db)
            .await?
        else {
            return Ok(None);
        };
        let open = s.account_id == key.account
            && s.revoked_at.is_none()
            && s.expires_at > self.clock.now();
        if !open {
            return Ok(None);
        }
        let id = key.account;
        Ok(match s.kind {
            AccountKind::Poster => poster::Entity::find_by_id(id)
                .one(&self.db)
                .await?
                .filter(|p| p.status == PosterStatus::Active)
                .map(|p| Live::new(p, vec![Role::Poster])),
            AccountKind::Advertiser => advertiser::Entity::find_by_id(id)
                .one(&self.db)
                .await?
                .map(|a| Live::new(a, vec![Role::Advertiser])),
            AccountKind::Admin => admin::Entity::find_by_id(id)
                .one(&self.db)
                .await?
                .and_then(|a| admin_role(&a.role).map(|r| Live::new(a, vec![r]))),
        })
    }
}

/// The signed-in poster, as their row is now.
pub type PosterBearer = Bearer<crate::core::auth::PosterRole>;
/// The signed-in advertiser, as their row is now.
pub type AdvertiserBearer = Bearer<crate::core::auth::AdvertiserRole>;

/// The account row behind a verified bearer (the session's snapshot of it).
pub fn account<M: std::any::Any + Send + Sync, R: Roles>(bearer: &Bearer<R>) -> Result<Arc<M>> {
    bearer
        .account::<M>()
        .ok_or_else(|| ApiError::internal(std::io::Error::other("session without its account")))
}

/// The poster behind a verified bearer.
pub fn poster(bearer: &PosterBearer) -> Result<Arc<poster::Model>> {
    account(bearer)
}

/// The advertiser behind a verified bearer.
pub fn advertiser(bearer: &AdvertiserBearer) -> Result<Arc<advertiser::Model>> {
    account(bearer)
}

/// The administrator behind a verified bearer of any staff role.
pub fn admin<R: Roles>(bearer: &Bearer<R>) -> Result<Arc<admin::Model>> {
    account(bearer)
}
