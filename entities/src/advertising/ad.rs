use sea_orm::entity::prelude::*;

/// An ad (an advertiser's campaign). Money in integer cents: `funded_cents` came in by
/// payments (or an operator's grant); posters can earn `funded - reserved - spent`.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "advertising_ads")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    /// None for ads an operator made.
    pub advertiser_id: Option<Uuid>,
    pub title: String,
    pub description: Option<String>,
    pub category_id: Option<String>,
    /// ISO 3166-1 alpha-2.
    pub country: String,
    /// Where the source video is: a storage key, or an https URL.
    pub video_source: String,
    pub payout_cents: i64,
    pub budget_cents: i64,
    pub funded_cents: i64,
    pub reserved_cents: i64,
    pub spent_cents: i64,
    pub status: AdStatus,
    pub status_reason: Option<String>,
    /// Approved and its free budget covers one payout: shown to posters. Kept by every
    /// statement that moves the ad's money or status, so the list is one indexed read.
    pub listed: bool,
    /// The audience an advertiser asked for (`{ageMin, ageMax, genders}` as JSON text).
    pub demographics: Option<String>,
    /// An advertiser's video (why it failed in `video_error`); None for an operator's ad,
    /// whose source is used as given.
    pub video_status: Option<VideoStatus>,
    pub video_error: Option<String>,
    /// Storage keys of the transcoded video (H.264/AAC, at most 720p) and its thumbnail.
    pub video_key: Option<String>,
    pub thumbnail_key: Option<String>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}

states! {
    /// An ad's moderation state: pending review; approved (shown when funded); paused;
    /// rejected (with a reason); deleted (softly: kept for finance).
    pub enum AdStatus {
        Pending = "pending",
        Approved = "approved",
        Paused = "paused",
        Rejected = "rejected",
        Deleted = "deleted",
    }
}

impl AdStatus {
    /// The states a move to `self` starts from: approval (or resumption) of a pending or
    /// paused ad, a pause of an approved one, rejection of any live one, deletion of any
    /// but a deleted one, and back to review after an advertiser's edit.
    pub const fn comes_from(self) -> &'static [Self] {
        match self {
            Self::Pending => &[Self::Pending, Self::Approved],
            Self::Approved => &[Self::Pending, Self::Paused],
            Self::Paused => &[Self::Approved],
            Self::Rejected => &[Self::Pending, Self::Approved, Self::Paused],
            Self::Deleted => &[Self::Pending, Self::Approved, Self::Paused, Self::Rejected],
        }
    }

    pub fn can_move_to(self, next: Self) -> bool {
        next.comes_from().contains(&self)
    }
}

states! {
    /// An advertiser's video: processing until transcoded (ready) or given up on (failed);
    /// purged once retention removed a rejected or deleted ad's media.
    pub enum VideoStatus {
        Processing = "processing",
        Ready = "ready",
        Failed = "failed",
        Purged = "purged",
    }
}
