//! Wire shapes of the car statistics: trending cars, counters, analytics (camelCase).

use crate::services::marketplace::cars::dto::Car;
use crate::services::marketplace::wire::Scalar;
use serde::{Deserialize, Serialize};
use switchboard_entities::marketplace::car;
use utoipa::{IntoParams, ToSchema};

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatsBatchRequest {
    /// 1 to 100 car ids.
    pub car_ids: Option<Vec<String>>,
}

/// `limit` of `GET /cars/trending`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TrendingParams {
    /// Default 10, at most 50.
    #[param(value_type = Option<u64>, minimum = 1, maximum = 50)]
    pub limit: Option<Scalar>,
}

/// A trending car: the Car and its score.
#[derive(Debug, Serialize, ToSchema)]
pub struct TrendingCar {
    #[serde(flatten)]
    pub car: Car,
    /// Σ points × exp(-age_hours / 48) over the last 7 UTC days.
    pub score: f64,
}

/// One car's counters. Views, likes, comments, favorites and shares are public (every Car
/// and the interaction answers show them); inquiries are the seller's business.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CarStats {
    pub car_id: String,
    pub views: i64,
    pub likes: i64,
    pub comments: i64,
    pub favorites: i64,
    /// Null unless the caller is the car's seller or an administrator.
    pub inquiries: Option<i64>,
    pub shares: i64,
}

impl CarStats {
    /// `c`'s counters as `owner` (its seller or an administrator asking) or anyone else
    /// may see them.
    pub fn of(c: &car::Model, owner: bool) -> Self {
        Self {
            car_id: c.id.to_string(),
            views: c.view_count,
            likes: c.like_count,
            comments: c.comment_count,
            favorites: c.favorite_count,
            inquiries: owner.then_some(c.inquiry_count),
            shares: c.share_count,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatsBatch {
    /// In the order asked, each id once.
    pub stats: Vec<CarStats>,
    /// Ids asked for that name no car (malformed ones included), as sent.
    pub not_found: Vec<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DayCount {
    /// YYYY-MM-DD (UTC).
    pub date: String,
    pub count: i64,
}

/// The spec's car analytics, with the car's other counters.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Analytics {
    pub views: i64,
    pub inquiries: i64,
    pub favorites: i64,
    pub likes: i64,
    pub comments: i64,
    pub shares: i64,
    /// The last 30 UTC days, oldest first, days without views as 0.
    pub view_history: Vec<DayCount>,
}

impl Analytics {
    pub fn new(c: &car::Model, history: Vec<(String, i64)>) -> Self {
        Self {
            views: c.view_count,
            inquiries: c.inquiry_count,
            favorites: c.favorite_count,
            likes: c.like_count,
            comments: c.comment_count,
            shares: c.share_count,
            view_history: history
                .into_iter()
                .map(|(date, count)| DayCount { date, count })
                .collect(),
        }
    }
}
