//! Posters who game the verifier: after `proof_rejection_limit` screenshots rejected as not
//! showing their video within `proof_rejection_window_secs`, a poster cannot submit until
//! the oldest of those leaves the window. The count is the database's, so every node agrees.

use super::super::error::{AdvertisingError, Result};
use super::super::state::AdvertisingState;
use chrono::{DateTime, Duration, Utc};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use serde::Serialize;
use switchboard_entities::advertising::screenshot;
use utoipa::ToSchema;
use uuid::Uuid;

/// The reason code the limit counts.
pub const NOT_SHOWN: &str = "not_shown";

/// A poster's recent screenshots rejected as not showing their video.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProofRejections {
    /// Within the window (at most `limit` are counted).
    pub count: u64,
    pub limit: u32,
    pub window_secs: i64,
    /// While set and ahead, the poster cannot submit screenshots.
    pub blocked_until: Option<DateTime<Utc>>,
}

pub async fn of(
    st: &AdvertisingState,
    db: &impl ConnectionTrait,
    poster: Uuid,
) -> Result<ProofRejections> {
    let now = st.core.now();
    let limit = st.cfg.proof_rejection_limit;
    let window = st.cfg.proof_rejection_window_secs;
    let recent: Vec<Option<DateTime<Utc>>> = screenshot::Entity::find()
        .select_only()
        .column(screenshot::Column::DecidedAt)
        .filter(screenshot::Column::PosterId.eq(poster))
        .filter(screenshot::Column::ReasonCode.eq(NOT_SHOWN))
        .filter(screenshot::Column::DecidedAt.gt(now - Duration::seconds(window)))
        .order_by_desc(screenshot::Column::DecidedAt)
        .limit(u64::from(limit.max(1)))
        .into_tuple()
        .all(db)
        .await?;
    let count = recent.len() as u64;
    let blocked_until = (limit > 0 && count >= u64::from(limit))
        .then(|| recent.last().copied().flatten())
        .flatten()
        .map(|oldest| oldest + Duration::seconds(window));
    Ok(ProofRejections {
        count,
        limit,
        window_secs: window,
        blocked_until: blocked_until.filter(|u| *u > now),
    })
}

/// Refuses a poster over the limit (429 with the time left).
pub async fn check(st: &AdvertisingState, db: &impl ConnectionTrait, poster: Uuid) -> Result<()> {
    match of(st, db, poster).await?.blocked_until {
        Some(until) => Err(AdvertisingError::ProofsRefused {
            until,
            now: st.core.now(),
        }
        .into()),
        None => Ok(()),
    }
}
