//! Ads' wire shapes.

use super::super::wire::usd;
use serde::{Deserialize, Serialize};
use switchboard_entities::advertising::ad;
use switchboard_entities::advertising::screenshot::ScreenshotStatus;
use utoipa::{IntoParams, ToSchema};

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct AdsQuery {
    #[param(minimum = 1)]
    pub page: Option<u64>,
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u64>,
    /// A category's id.
    pub category_id: Option<String>,
    /// Another country's alpha-2 (or alpha-3) code; the poster's own by default.
    pub country_code: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdView {
    pub id: String,
    pub title: String,
    pub description: Option<String>,
    pub category_id: Option<String>,
    pub country_code: String,
    /// What one approved screenshot earns.
    pub payout_cents: i64,
    pub payout_usd: String,
    pub budget_cents: i64,
    pub budget_usd: String,
    /// Budget left for new screenshots (funded − reserved − spent).
    pub free_budget_cents: i64,
    pub free_budget_usd: String,
    /// `pending`, `approved`, `paused`, `rejected` or `deleted`.
    pub status: String,
    pub created_at: chrono::DateTime<chrono::Utc>,
}

pub fn free_cents(a: &ad::Model) -> i64 {
    Ord::max(a.funded_cents - a.reserved_cents - a.spent_cents, 0)
}

impl From<&ad::Model> for AdView {
    fn from(a: &ad::Model) -> Self {
        let free = free_cents(a);
        Self {
            id: a.id.to_string(),
            title: a.title.clone(),
            description: a.description.clone(),
            category_id: a.category_id.clone(),
            country_code: a.country.clone(),
            payout_cents: a.payout_cents,
            payout_usd: usd(a.payout_cents),
            budget_cents: a.budget_cents,
            budget_usd: usd(a.budget_cents),
            free_budget_cents: free,
            free_budget_usd: usd(free),
            status: a.status.as_str().to_owned(),
            created_at: a.created_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrendingAd {
    #[serde(flatten)]
    pub ad: AdView,
    /// The trending score (see the endpoint's description).
    pub score: f64,
}

/// Screenshots by status.
#[derive(Serialize, ToSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct ByStatus {
    pub pending: u64,
    pub needs_review: u64,
    pub approved: u64,
    pub rejected: u64,
}

impl ByStatus {
    pub fn from_counts(counts: &[(ScreenshotStatus, i64)]) -> Self {
        let mut s = Self::default();
        for (status, n) in counts {
            let n = u64::try_from(*n).unwrap_or(0);
            match status {
                ScreenshotStatus::Pending => s.pending = n,
                ScreenshotStatus::NeedsReview => s.needs_review = n,
                ScreenshotStatus::Approved => s.approved = n,
                ScreenshotStatus::Rejected => s.rejected = n,
            }
        }
        s
    }

    pub fn total(&self) -> u64 {
        self.pending + self.needs_review + self.approved + self.rejected
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdStats {
    pub ad_id: String,
    pub subscriptions: u64,
    pub screenshots: ByStatus,
    pub free_budget_cents: i64,
    pub free_budget_usd: String,
    pub spent_cents: i64,
    pub spent_usd: String,
    pub reserved_cents: i64,
    pub reserved_usd: String,
}
