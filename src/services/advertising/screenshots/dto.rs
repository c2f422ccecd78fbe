//! Screenshots' wire shapes.

use super::super::wire::usd;
use serde::Serialize;
use switchboard_entities::advertising::screenshot;
use utoipa::ToSchema;

/// The multipart form of an upload (for the document).
#[derive(ToSchema)]
pub struct ScreenshotUpload {
    pub subscription_id: String,
    /// The picture (PNG, JPEG or WebP, at most 10 MB); parts named `image` or `file` are
    /// taken too.
    #[schema(value_type = String, format = Binary)]
    pub screenshot: Vec<u8>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScreenshotView {
    pub id: String,
    pub subscription_id: String,
    pub ad_id: String,
    /// `pending`, `needs_review`, `approved` or `rejected`.
    pub status: String,
    /// Why it was rejected or sent to a person, for people.
    pub reason: Option<String>,
    /// The reason for programs: `shown`, `video_without_code`, `code_without_video`,
    /// `not_shown`, `unsure`, `duplicate` or `staff`.
    pub reason_code: Option<String>,
    /// The payout reserved for it (earned when approved).
    pub payout_cents: i64,
    pub payout_usd: String,
    pub width: i32,
    pub height: i32,
    pub content_type: String,
    pub decided_at: Option<chrono::DateTime<chrono::Utc>>,
    pub created_at: chrono::DateTime<chrono::Utc>,
}

impl From<&screenshot::Model> for ScreenshotView {
    fn from(s: &screenshot::Model) -> Self {
        Self {
            id: s.id.to_string(),
            subscription_id: s.subscription_id.to_string(),
            ad_id: s.ad_id.to_string(),
            status: s.status.as_str().to_owned(),
            reason: s.reason.clone(),
            reason_code: s.reason_code.clone(),
            payout_cents: s.payout_cents,
            payout_usd: usd(s.payout_cents),
            width: s.width,
            height: s.height,
            content_type: s.content_type.clone(),
            decided_at: s.decided_at,
            created_at: s.created_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScreenshotStatus {
    pub id: String,
    pub status: String,
    pub reason: Option<String>,
    pub reason_code: Option<String>,
    pub decided_at: Option<chrono::DateTime<chrono::Utc>>,
}
