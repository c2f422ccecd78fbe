//! Sign-ins: each is a session row (its id the token's `sid`), live while neither revoked
//! nor expired; the token's `typ` names the kind of account (`poster`; advertisers and
//! administrators sign in with their own kinds), so one kind is never taken for another.
//! Every bearer request asks `core::session` whether the session still holds, so a logout
//! or a ban counts from the next request.

use super::error::Result;
use super::AdvertisingState;
use crate::core::auth::Role;
use crate::core::error::ApiError;
use crate::core::session::{Change, EndReason, Live, SessionKey, SessionSource};
use async_trait::async_trait;
use chrono::Duration;
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter, Set};
use switchboard_entities::advertising::{poster, session};
use uuid::Uuid;

/// The `typ` of posters' tokens.
pub const POSTER_TOKEN: &str = "poster";

/// Starts a poster's session and answers its token.
pub async fn sign_in_poster(st: &AdvertisingState, p: &poster::Model) -> Result<String> {
    let now = st.core.now();
    let ttl = st.cfg.poster_token_ttl_secs;
    let id = Uuid::new_v4();
    session::ActiveModel {
        id: Set(id),
        kind: Set(POSTER_TOKEN.into()),
        account_id: Set(p.id),
        expires_at: Set(now + Duration::seconds(ttl)),
        revoked_at: Set(None),
        created_at: Set(now),
    }
    .insert(&st.core.db)
    .await?;
    Ok(st.core.jwt.issue_with_roles(
        POSTER_TOKEN,
        &p.id.to_string(),
        Some(&id.to_string()),
        &[Role::Poster],
        now,
        ttl,
    )?)
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
    st.sessions.changed(Change::SessionEnded { key, reason });
    Ok(())
}

/// The platform's sessions: a session row not revoked nor expired, of an account that
/// exists and is not banned. The account snapshot is the poster row.
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
        if !open || s.kind != POSTER_TOKEN {
            return Ok(None);
        }
        let p = poster::Entity::find_by_id(key.account)
            .one(&self.db)
            .await?;
        Ok(p.filter(|p| p.status == "active")
            .map(|p| Live::new(p, vec![Role::Poster])))
    }
}

/// The signed-in poster, as their row is now.
pub type PosterBearer = crate::core::auth::Bearer<crate::core::auth::PosterRole>;

/// The poster behind a verified bearer (the session's snapshot of their row).
pub fn poster(bearer: &PosterBearer) -> Result<std::sync::Arc<poster::Model>> {
    bearer
        .account::<poster::Model>()
        .ok_or_else(|| ApiError::internal(std::io::Error::other("poster session without its row")))
}
