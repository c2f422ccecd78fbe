//! Checking screenshots, as two jobs:
//!
//! - `screenshot-verify` `{screenshot_id}`: a near-duplicate (perceptual hash within
//!   `[providers.screenshots] duplicate_max_distance` bits) of any earlier submission is
//!   rejected as "duplicate"; otherwise the verifier port reads the poster's referral code:
//!   found → approved, not found or unsure → needs_review (a person looks).
//! - `screenshot-processed` `{screenshot_id, outcome, reason?}`: applies the outcome only if
//!   the screenshot is still `pending` (an administrator may have decided first), moving the
//!   reserved payout once.

use super::super::state::AdvertisingState;
use super::store::{self, Verdict};
use crate::core::jobs::{Done, Job, JobFailure, JobResult, NewJob};
use crate::providers::screenshot::Outcome;
use crate::providers::storage::StorageKey;
use sea_orm::EntityTrait;
use serde::{Deserialize, Serialize};
use switchboard_entities::advertising::{poster, screenshot};
use uuid::Uuid;

pub const VERIFY: &str = "screenshot-verify";
pub const PROCESSED: &str = "screenshot-processed";

/// Who decided, as screenshots record it.
pub const VERIFIER: &str = "verifier";

#[derive(Debug, Serialize, Deserialize)]
pub struct VerifyJob {
    pub screenshot_id: Uuid,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct ProcessedJob {
    pub screenshot_id: Uuid,
    /// `approved`, `rejected` or `needs_review`.
    pub outcome: String,
    pub reason: Option<String>,
}

pub fn register(st: &AdvertisingState) {
    super::super::jobs::handle(st, VERIFY, |s, job| async move { verify(&s, job).await });
    super::super::jobs::handle(
        st,
        PROCESSED,
        |s, job| async move { processed(&s, job).await },
    );
}

fn retry(e: impl std::fmt::Display) -> JobFailure {
    JobFailure::retry(e)
}

async fn verify(st: &AdvertisingState, job: Job) -> JobResult {
    let p: VerifyJob = job.payload()?;
    let db = &st.core.db;
    let Some(shot) = screenshot::Entity::find_by_id(p.screenshot_id)
        .one(db)
        .await
        .map_err(retry)?
    else {
        return Ok(Done::default());
    };
    if shot.status != "pending" {
        return Ok(Done::default());
    }
    let max = st.providers.settings.screenshots.duplicate_max_distance;
    let dupes = store::near_duplicates(st, &shot, max)
        .await
        .map_err(retry)?;
    let (outcome, reason) = if !dupes.is_empty() {
        (Verdict::Rejected, Some("duplicate".to_owned()))
    } else {
        let code = poster::Entity::find_by_id(shot.poster_id)
            .one(db)
            .await
            .map_err(retry)?
            .map(|p| p.referral_code)
            .ok_or_else(|| JobFailure::permanent("the poster is gone"))?;
        let key = StorageKey::parse(&shot.image_key).map_err(JobFailure::permanent)?;
        let image = st.media.storage.get(&key).await.map_err(retry)?;
        match st.media.verifier.verify(&image, &code).await {
            Outcome::Found => (Verdict::Approved, None),
            Outcome::NotFound => (
                Verdict::NeedsReview,
                Some("the referral code could not be read; a person will look".to_owned()),
            ),
            Outcome::Unsure(why) => (
                Verdict::NeedsReview,
                Some(format!("a person will look: {why}")),
            ),
        }
    };
    let next = ProcessedJob {
        screenshot_id: shot.id,
        outcome: outcome.status().into(),
        reason,
    };
    let next = NewJob::new(PROCESSED, serde_json::to_value(next).map_err(retry)?)
        .key(format!("{PROCESSED}:{}", shot.id));
    st.core.jobs.enqueue(db, next).await.map_err(retry)?;
    Ok(Done::from(1))
}

async fn processed(st: &AdvertisingState, job: Job) -> JobResult {
    let p: ProcessedJob = job.payload()?;
    let verdict = match p.outcome.as_str() {
        "approved" => Verdict::Approved,
        "rejected" => Verdict::Rejected,
        "needs_review" => Verdict::NeedsReview,
        other => return Err(JobFailure::permanent(format!("unknown outcome {other:?}"))),
    };
    let decided = store::decide(
        st,
        p.screenshot_id,
        verdict,
        p.reason,
        VERIFIER,
        &["pending"],
    )
    .await
    .map_err(|e| JobFailure::retry(e.to_string()))?;
    Ok(Done::from(u64::from(decided.is_some())))
}
