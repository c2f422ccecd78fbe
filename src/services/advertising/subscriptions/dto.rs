//! Subscriptions' wire shapes.

use serde::{Deserialize, Serialize};
use switchboard_entities::advertising::subscription;
use utoipa::ToSchema;

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SubscribeRequest {
    pub ad_id: Option<String>,
    /// The poster's device, as they describe it (an object, at most 2 KB as JSON; stored as
    /// given).
    #[schema(value_type = Object)]
    pub phone_info: Option<serde_json::Value>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionView {
    pub id: String,
    pub ad_id: String,
    /// `processing`, `ready` or `failed`.
    pub status: String,
    /// Why the video could not be made (`failed` only).
    pub failure_reason: Option<String>,
    /// The exact text burnt into this subscription's video (referral code, hyphen, tag):
    /// a screenshot proves this subscription only when it shows the video with this code.
    pub proof_code: String,
    #[schema(value_type = Object)]
    pub phone_info: serde_json::Value,
    pub created_at: chrono::DateTime<chrono::Utc>,
    pub updated_at: chrono::DateTime<chrono::Utc>,
}

impl From<&subscription::Model> for SubscriptionView {
    fn from(s: &subscription::Model) -> Self {
        Self {
            id: s.id.to_string(),
            ad_id: s.ad_id.to_string(),
            status: s.status.as_str().to_owned(),
            failure_reason: s.failure_reason.clone(),
            proof_code: s.proof_code.clone(),
            phone_info: serde_json::from_str(&s.phone_info).unwrap_or(serde_json::Value::Null),
            created_at: s.created_at,
            updated_at: s.updated_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Subscribed {
    pub subscription: SubscriptionView,
    /// The signed link to the personalised video; null until it is ready.
    pub video_url: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VideoLink {
    /// `processing`, `ready` or `failed`.
    pub status: String,
    /// A signed link that works without a token until `expiresAt`; null unless ready.
    pub video_url: Option<String>,
    pub expires_at: Option<chrono::DateTime<chrono::Utc>>,
    pub failure_reason: Option<String>,
}
