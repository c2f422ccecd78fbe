//! Trending ads: what posters took up lately. An ad's score over the last 7 days is
//!
//!   score = Σ_days (subscriptions_d + 3 × approved_screenshots_d) × 2^−(d + ½)/2
//!
//! where `d` is whole days ago (0 = the last 24 hours): each subscription counts 1 and
//! each approved screenshot 3 (proof the ad was really posted), halving every two days, so
//! a burst today outranks a bigger one last week. Counted per day in the database (14
//! grouped counts over indexed time ranges), ranked here.

use super::super::error::Result;
use super::super::AdvertisingState;
use chrono::{DateTime, Duration, Utc};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QuerySelect};
use std::collections::HashMap;
use switchboard_entities::advertising::{screenshot, subscription};
use uuid::Uuid;

pub const DAYS: i64 = 7;
const SCREENSHOT_WEIGHT: f64 = 3.0;
const HALF_LIFE_DAYS: f64 = 2.0;

/// The weight of something that happened `days_ago` whole days ago.
pub fn decay(days_ago: i64) -> f64 {
    (-(days_ago as f64 + 0.5) / HALF_LIFE_DAYS).exp2()
}

/// Every ad with a score above zero, highest first.
pub async fn scores(st: &AdvertisingState, now: DateTime<Utc>) -> Result<Vec<(Uuid, f64)>> {
    let db = &st.core.db;
    let mut scores: HashMap<Uuid, f64> = HashMap::new();
    for d in 0..DAYS {
        let (from, to) = (now - Duration::days(d + 1), now - Duration::days(d));
        let subs: Vec<(Uuid, i64)> = subscription::Entity::find()
            .select_only()
            .column(subscription::Column::AdId)
            .column_as(subscription::Column::Id.count(), "n")
            .filter(subscription::Column::CreatedAt.gt(from))
            .filter(subscription::Column::CreatedAt.lte(to))
            .group_by(subscription::Column::AdId)
            .into_tuple()
            .all(db)
            .await?;
        let approved: Vec<(Uuid, i64)> = screenshot::Entity::find()
            .select_only()
            .column(screenshot::Column::AdId)
            .column_as(screenshot::Column::Id.count(), "n")
            .filter(screenshot::Column::Status.eq("approved"))
            .filter(screenshot::Column::DecidedAt.gt(from))
            .filter(screenshot::Column::DecidedAt.lte(to))
            .group_by(screenshot::Column::AdId)
            .into_tuple()
            .all(db)
            .await?;
        let w = decay(d);
        for (ad, n) in subs {
            *scores.entry(ad).or_default() += n as f64 * w;
        }
        for (ad, n) in approved {
            *scores.entry(ad).or_default() += n as f64 * SCREENSHOT_WEIGHT * w;
        }
    }
    let mut ranked: Vec<(Uuid, f64)> = scores.into_iter().collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    Ok(ranked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weight_halves_every_two_days() {
        assert!((decay(0) / decay(2) - 2.0).abs() < 1e-9);
        assert!(decay(0) < 1.0 && decay(6) > 0.0);
    }
}
