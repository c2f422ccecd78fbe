use sea_orm::entity::prelude::*;

/// A poster's proof that they posted their video.
#[sea_orm::model]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "advertising_screenshots")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub poster_id: Uuid,
    pub subscription_id: Uuid,
    pub ad_id: Uuid,
    pub image_key: String,
    pub content_type: String,
    pub width: i32,
    pub height: i32,
    /// 64-bit perceptual hash (as a signed integer) and its eight bytes: two hashes at most
    /// 7 bits apart share at least one byte, so a near-duplicate is found by an indexed
    /// byte match before the Hamming distance is counted.
    pub phash: i64,
    pub band0: i32,
    pub band1: i32,
    pub band2: i32,
    pub band3: i32,
    pub band4: i32,
    pub band5: i32,
    pub band6: i32,
    pub band7: i32,
    pub status: ScreenshotStatus,
    pub reason: Option<String>,
    /// A stable name for the reason: `shown`, `video_without_code`, `code_without_video`,
    /// `not_shown`, `unsure`, `duplicate` or `staff`.
    pub reason_code: Option<String>,
    /// Why the verifier decided as it did (JSON), for staff.
    pub evidence: Option<String>,
    /// A small grey print (`WxH:base64`) of where the code is, or of the whole picture.
    pub detail_print: Option<String>,
    /// The ad's payout reserved for this screenshot at submission.
    pub payout_cents: i64,
    /// Set (to the subscription) while undecided: unique, so one is open per subscription.
    pub open_subscription_id: Option<Uuid>,
    /// Set (to the subscription) once approved: unique, so at most one is approved.
    pub approved_subscription_id: Option<Uuid>,
    /// `verifier` or the deciding administrator's id.
    pub decided_by: Option<String>,
    pub decided_at: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

impl ActiveModelBehavior for ActiveModel {}

states! {
    /// A screenshot: pending until the verifier decides; `needs_review` when it leaves the
    /// decision to a person; approved (paid) or rejected at the end.
    pub enum ScreenshotStatus {
        Pending = "pending",
        NeedsReview = "needs_review",
        Approved = "approved",
        Rejected = "rejected",
    }
}

impl ScreenshotStatus {
    /// Still to be decided (staff's queue).
    pub const UNDECIDED: [Self; 2] = [Self::Pending, Self::NeedsReview];
}
