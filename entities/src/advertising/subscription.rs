use sea_orm::entity::prelude::*;

/// A poster's subscription to an ad, with their personalised video.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "advertising_subscriptions")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub poster_id: Uuid,
    pub ad_id: Uuid,
    /// The device description the poster sent, as given (JSON text).
    pub phone_info: String,
    pub status: SubscriptionStatus,
    pub failure_reason: Option<String>,
    /// The personalised video's storage key once ready.
    pub video_key: Option<String>,
    /// The exact text burnt into the personalised video: the referral code and a tag of this
    /// subscription (`K7M9QX2P-ACEF`); the referral code alone for older subscriptions.
    pub proof_code: String,
    /// The video's key frames as JSON (`{key, frames, codeBox}`), once made.
    pub proof_frames: Option<String>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}

states! {
    /// A subscription's personalised video: processing until it is ready or has failed.
    pub enum SubscriptionStatus {
        Processing = "processing",
        Ready = "ready",
        Failed = "failed",
    }
}

impl SubscriptionStatus {
    /// The video is made once: only a processing subscription ends, ready or failed.
    pub fn can_move_to(self, next: Self) -> bool {
        matches!((self, next), (Self::Processing, Self::Ready | Self::Failed))
    }
}
