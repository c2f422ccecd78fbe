//! The `video-processing` job's payload, shared by the two kinds of video it makes: a
//! poster's personalised copy (`subscriptions::video`) and the advertiser's own video,
//! checked and transcoded (`campaigns::video`).

use serde::{Deserialize, Serialize};
use switchboard_entities::advertising::ad;
use uuid::Uuid;

pub const PROCESSING: &str = "video-processing";

/// Which video a `video-processing` job makes (stored as `type` in the payload).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VideoJobKind {
    /// A poster's copy with their proof code burnt in.
    Personalised,
    /// The advertiser's video, to check and transcode.
    Ad,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct ProcessingJob {
    pub ad_id: Uuid,
    pub video_url: String,
    #[serde(rename = "type")]
    pub kind: VideoJobKind,
    pub subscription_id: Option<Uuid>,
}

impl ProcessingJob {
    pub fn personalised(a: &ad::Model, subscription: Uuid) -> Self {
        Self {
            ad_id: a.id,
            // The advertiser's transcoded video when there is one.
            video_url: a
                .video_key
                .clone()
                .unwrap_or_else(|| a.video_source.clone()),
            kind: VideoJobKind::Personalised,
            subscription_id: Some(subscription),
        }
    }

    /// The advertiser's video of `a`, to check and transcode.
    pub fn ad(a: &ad::Model) -> Self {
        Self {
            ad_id: a.id,
            video_url: a.video_source.clone(),
            kind: VideoJobKind::Ad,
            subscription_id: None,
        }
    }
}
