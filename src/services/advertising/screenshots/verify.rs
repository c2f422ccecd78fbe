//! Checking screenshots, as two jobs:
//!
//! - `screenshot-verify` `{screenshot_id}`: the verifier port decides whether the picture
//!   shows the subscription's personalised video (its key frames) with the subscription's
//!   proof code on it: both → approved; one of them → needs_review (a person looks);
//!   neither → rejected. A near-duplicate of an earlier submission (whole-picture hash within
//!   `duplicate_max_distance` bits *and* the print of where the code is at least
//!   `detail_min_similarity` alike) is rejected as a duplicate, naming it. The evidence is kept.
//! - `screenshot-processed` `{screenshot_id, outcome, reason?, reason_code?, evidence?}`:
//!   applies the outcome only if the screenshot is still `pending` (an administrator may
//!   have decided first), moving the reserved payout once.

use super::super::state::AdvertisingState;
use super::super::subscriptions::proof::{make_frames, ProofFrames};
use super::store::{self, Outcome, Verdict};
use crate::core::jobs::{Done, Job, JobFailure, JobResult, NewJob};
use crate::providers::screenshot::{DetailPrint, ProofRequest, VideoRef};
use crate::providers::storage::StorageKey;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde::{Deserialize, Serialize};
use switchboard_entities::advertising::screenshot::{self, ScreenshotStatus};
use switchboard_entities::advertising::subscription;
use uuid::Uuid;

pub use super::jobs::{VerifyJob, DUPLICATE, PROCESSED, VERIFIER, VERIFY};

#[derive(Debug, Serialize, Deserialize)]
pub struct ProcessedJob {
    pub screenshot_id: Uuid,
    /// `approved`, `rejected` or `needs_review`.
    pub outcome: String,
    pub reason: Option<String>,
    /// Absent in jobs queued before reasons had codes.
    #[serde(default)]
    pub reason_code: Option<String>,
    #[serde(default)]
    pub evidence: Option<serde_json::Value>,
}

pub fn register(st: &AdvertisingState) {
    super::super::jobs::handle(st, VERIFY, |s, job| async move { verify(&s, job).await });
    super::super::jobs::handle(
        st,
        PROCESSED,
        |s, job| async move { processed(&s, job).await },
    );
}

/// The subscription's key frames; made now (and kept) for a video personalised before
/// there were any. None when there is no video to take them from.
async fn frames(
    st: &AdvertisingState,
    sub: &subscription::Model,
) -> Result<Option<VideoRef>, JobFailure> {
    let known = ProofFrames::parse(sub.proof_frames.as_deref());
    let frames = match (known, &sub.video_key) {
        (Some(f), _) => f,
        (None, None) => return Ok(None),
        (None, Some(video)) => {
            let key = StorageKey::parse(video).map_err(JobFailure::permanent)?;
            let file = st
                .media
                .storage
                .fetch_to_temp(&key)
                .await
                .map_err(JobFailure::retry)?;
            let info = st
                .media
                .video
                .probe(&file)
                .await
                .map_err(JobFailure::retry)?;
            let made = make_frames(st, sub.id, &file, info.duration_secs, None)
                .await
                .map_err(|e| JobFailure::retry(e.detail))?;
            subscription::Entity::update_many()
                .col_expr(
                    subscription::Column::ProofFrames,
                    Expr::value(made.to_json()),
                )
                .filter(subscription::Column::Id.eq(sub.id))
                .exec(&st.core.db)
                .await
                .map_err(JobFailure::retry)?;
            made
        }
    };
    frames.load(st).await.map(Some).map_err(JobFailure::retry)
}

async fn verify(st: &AdvertisingState, job: Job) -> JobResult {
    let p: VerifyJob = job.payload()?;
    let db = &st.core.db;
    let Some(shot) = screenshot::Entity::find_by_id(p.screenshot_id)
        .one(db)
        .await
        .map_err(JobFailure::retry)?
    else {
        return Ok(Done::default());
    };
    if shot.status != ScreenshotStatus::Pending {
        return Ok(Done::default());
    }
    let sub = subscription::Entity::find_by_id(shot.subscription_id)
        .one(db)
        .await
        .map_err(JobFailure::retry)?
        .ok_or_else(|| JobFailure::permanent("the subscription is gone"))?;
    let video = match frames(st, &sub).await {
        Ok(v) => v,
        Err(e) if job.attempt < job.max_attempts => return Err(e),
        // Out of tries (the video or its frames are gone): the verifier says it cannot
        // tell, and a person decides.
        Err(e) => {
            tracing::warn!(subscription = %sub.id, error = ?e, "no key frames for a screenshot");
            None
        }
    };
    let key = StorageKey::parse(&shot.image_key).map_err(JobFailure::permanent)?;
    let image = st
        .media
        .storage
        .get(&key)
        .await
        .map_err(JobFailure::retry)?
        .to_vec();
    let verdict = st
        .media
        .verifier
        .verify(ProofRequest {
            image,
            code: sub.proof_code.clone(),
            video,
        })
        .await;
    let detail = verdict.print;
    // Kept before the duplicate check, so a later copy sees it whichever finishes first.
    screenshot::Entity::update_many()
        .col_expr(
            screenshot::Column::DetailPrint,
            Expr::value(detail.as_ref().map(DetailPrint::to_text)),
        )
        .filter(screenshot::Column::Id.eq(shot.id))
        .exec(db)
        .await
        .map_err(JobFailure::retry)?;
    let s = &st.providers.settings.screenshots;
    let dupes = match &detail {
        Some(d) => {
            let min = if d.is_whole_picture() {
                s.picture_min_similarity
            } else {
                s.detail_min_similarity
            };
            store::near_duplicates(st, &shot, d, s.duplicate_max_distance, min)
                .await
                .map_err(JobFailure::retry)?
        }
        None => Vec::new(),
    };
    let mut evidence = verdict.evidence;
    evidence.duplicates = dupes;
    let (outcome, reason, code) = match evidence.duplicates.first() {
        Some(first) => (
            Verdict::Rejected,
            Some(format!("duplicate of screenshot {}", first.id)),
            DUPLICATE,
        ),
        None => (
            Verdict::from_status(verdict.finding.status()),
            verdict.finding.reason(&sub.proof_code),
            verdict.finding.code(),
        ),
    };
    let next = ProcessedJob {
        screenshot_id: shot.id,
        outcome: outcome.status().as_str().into(),
        reason,
        reason_code: Some(code.into()),
        evidence: serde_json::to_value(&evidence).ok(),
    };
    let next = NewJob::new(
        PROCESSED,
        serde_json::to_value(next).map_err(JobFailure::retry)?,
    )
    .key(format!("{PROCESSED}:{}", shot.id));
    st.core
        .jobs
        .enqueue(db, next)
        .await
        .map_err(JobFailure::retry)?;
    Ok(Done::from(1))
}

async fn processed(st: &AdvertisingState, job: Job) -> JobResult {
    let p: ProcessedJob = job.payload()?;
    let Some(verdict) = ScreenshotStatus::parse(&p.outcome).and_then(Verdict::of) else {
        let other = &p.outcome;
        return Err(JobFailure::permanent(format!("unknown outcome {other:?}")));
    };
    let outcome = Outcome {
        verdict,
        reason: p.reason,
        reason_code: p.reason_code,
        evidence: p.evidence.map(|e| e.to_string()),
    };
    let decided = store::decide(
        st,
        p.screenshot_id,
        outcome,
        VERIFIER,
        &[ScreenshotStatus::Pending],
    )
    .await
    .map_err(|e| JobFailure::retry(e.to_string()))?;
    Ok(Done::from(u64::from(decided.is_some())))
}
