//! A poster's numbers: subscriptions by status, screenshots by status, how many of their
//! decided screenshots were approved, and what they earned.

use super::super::ads::dto::ByStatus;
use super::super::error::Result;
use super::super::money::store as money;
use super::super::state::AdvertisingState;
use super::super::wire::usd;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QuerySelect};
use serde::Serialize;
use switchboard_entities::advertising::subscription::SubscriptionStatus;
use switchboard_entities::advertising::{screenshot, subscription};
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Serialize, ToSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionCounts {
    pub total: u64,
    pub processing: u64,
    pub ready: u64,
    pub failed: u64,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PosterStats {
    pub subscriptions: SubscriptionCounts,
    pub screenshots: ByStatus,
    /// Approved of the decided screenshots (approved + rejected), 0 to 1; null before any
    /// is decided.
    pub approval_rate: Option<f64>,
    pub lifetime_earnings_cents: i64,
    pub lifetime_earnings_usd: String,
    pub available_cents: i64,
    pub available_usd: String,
}

async fn counts<E, C, S>(
    st: &AdvertisingState,
    poster: Uuid,
    poster_col: C,
    status_col: C,
    id_col: C,
) -> Result<Vec<(S, i64)>>
where
    E: EntityTrait<Column = C>,
    C: ColumnTrait,
    S: sea_orm::TryGetable,
{
    Ok(E::find()
        .select_only()
        .column(status_col)
        .column_as(id_col.count(), "n")
        .filter(poster_col.eq(poster))
        .group_by(status_col)
        .into_tuple()
        .all(&st.core.db)
        .await?)
}

pub async fn of(st: &AdvertisingState, poster: Uuid) -> Result<PosterStats> {
    use screenshot::Column as Sh;
    use subscription::Column as Su;
    let subs =
        counts::<subscription::Entity, _, _>(st, poster, Su::PosterId, Su::Status, Su::Id).await?;
    let mut s = SubscriptionCounts::default();
    for (status, n) in subs {
        let n = u64::try_from(n).unwrap_or(0);
        s.total += n;
        match status {
            SubscriptionStatus::Processing => s.processing = n,
            SubscriptionStatus::Ready => s.ready = n,
            SubscriptionStatus::Failed => s.failed = n,
        }
    }
    let shots = ByStatus::from_counts(
        &counts::<screenshot::Entity, _, _>(st, poster, Sh::PosterId, Sh::Status, Sh::Id).await?,
    );
    let decided = shots.approved + shots.rejected;
    let balance = money::balance(st, poster).await?;
    Ok(PosterStats {
        subscriptions: s,
        approval_rate: (decided > 0).then(|| shots.approved as f64 / decided as f64),
        screenshots: shots,
        lifetime_earnings_cents: balance.lifetime,
        lifetime_earnings_usd: usd(balance.lifetime),
        available_cents: balance.available,
        available_usd: usd(balance.available),
    })
}
