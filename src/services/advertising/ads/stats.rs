//! An ad's figures, read by the poster's view of one ad and the advertiser's campaign view.

use super::super::error::Result;
use super::super::state::AdvertisingState;
use super::super::wire::usd;
use super::dto::{free_cents, AdStats, ByStatus};
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QuerySelect};
use switchboard_entities::advertising::screenshot::ScreenshotStatus;
use switchboard_entities::advertising::{ad, screenshot, subscription};

/// An ad's subscriptions, screenshots by status and money (posters and its advertiser).
pub async fn of(st: &AdvertisingState, a: &ad::Model) -> Result<AdStats> {
    let db = &st.core.db;
    let subscriptions = subscription::Entity::find()
        .filter(subscription::Column::AdId.eq(a.id))
        .count(db)
        .await?;
    let counts: Vec<(ScreenshotStatus, i64)> = screenshot::Entity::find()
        .select_only()
        .column(screenshot::Column::Status)
        .column_as(screenshot::Column::Id.count(), "n")
        .filter(screenshot::Column::AdId.eq(a.id))
        .group_by(screenshot::Column::Status)
        .into_tuple()
        .all(db)
        .await?;
    let free = free_cents(a);
    Ok(AdStats {
        ad_id: a.id.to_string(),
        subscriptions,
        screenshots: ByStatus::from_counts(&counts),
        free_budget_cents: free,
        free_budget_usd: usd(free),
        spent_cents: a.spent_cents,
        spent_usd: usd(a.spent_cents),
        reserved_cents: a.reserved_cents,
        reserved_usd: usd(a.reserved_cents),
    })
}
