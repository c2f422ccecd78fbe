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
    /// `pending`, `approved`, `paused`, `rejected` or `deleted`.
    pub status: String,
    pub status_reason: Option<String>,
    /// Approved and its free budget covers one payout: shown to posters. Kept by every
    /// statement that moves the ad's money or status, so the list is one indexed read.
    pub listed: bool,
    /// The audience an advertiser asked for (`{ageMin, ageMax, genders}` as JSON text).
    pub demographics: Option<String>,
    /// An advertiser's video: `processing`, `ready` or `failed` (why in `video_error`);
    /// None for an operator's ad, whose source is used as given.
    pub video_status: Option<String>,
    pub video_error: Option<String>,
    /// Storage keys of the transcoded video (H.264/AAC, at most 720p) and its thumbnail.
    pub video_key: Option<String>,
    pub thumbnail_key: Option<String>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}
