//! Campaigns' wire shapes: the ad as its advertiser sees it, and its statistics.

use super::super::ads::dto::{AdStats, AdView};
use super::super::wire::usd;
use super::input::Demographics;
use serde::Serialize;
use switchboard_entities::advertising::ad;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CampaignView {
    #[serde(flatten)]
    pub ad: AdView,
    /// Why it was rejected or paused, when it was.
    pub status_reason: Option<String>,
    /// Shown to posters now (approved and funded beyond one payout).
    pub listed: bool,
    pub demographics: Option<Demographics>,
    /// `processing`, `ready` or `failed` (then `videoError` says why).
    pub video_status: Option<String>,
    pub video_error: Option<String>,
    /// Paid in so far (the budget is the target).
    pub funded_cents: i64,
    pub funded_usd: String,
    pub spent_cents: i64,
    pub spent_usd: String,
    pub reserved_cents: i64,
    pub reserved_usd: String,
    pub updated_at: chrono::DateTime<chrono::Utc>,
}

impl From<&ad::Model> for CampaignView {
    fn from(a: &ad::Model) -> Self {
        Self {
            ad: AdView::from(a),
            status_reason: a.status_reason.clone(),
            listed: a.listed,
            demographics: a
                .demographics
                .as_deref()
                .and_then(|d| serde_json::from_str(d).ok()),
            video_status: a.video_status.map(|v| v.as_str().to_owned()),
            video_error: a.video_error.clone(),
            funded_cents: a.funded_cents,
            funded_usd: usd(a.funded_cents),
            spent_cents: a.spent_cents,
            spent_usd: usd(a.spent_cents),
            reserved_cents: a.reserved_cents,
            reserved_usd: usd(a.reserved_cents),
            updated_at: a.updated_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CampaignStats {
    /// Posters who opened the ad, counted once per poster per day.
    pub views: u64,
    #[serde(flatten)]
    pub stats: AdStats,
}
