//! Personalised videos, as two jobs:
//!
//! - `video-processing` `{ad_id, video_url, type: "personalised", subscription_id}`: fetches
//!   the ad's video (a storage key, or a URL under the public-only outbound policy), burns the
//!   subscription's proof code into it with ffmpeg, stores the result and its key frames
//!   (`proof::make_frames`, what the screenshot verifier looks for). Every failure (a bad
//!   source, ffmpeg, the network) retries with the queue's backoff, `video_attempts` times in
//!   all; the last fails the subscription with a reason that says which kind it was.
//! - `video-processing` `{ad_id, video_url, type: "ad"}`: the advertiser's video, checked
//!   and transcoded (`campaigns::video`).
//! - `video-processed` `{subscription_id, status: "ready"|"failed", video_key?,
//!   proof_frames?, reason?}`: records the outcome on a subscription still `processing` and
//!   tells the poster.

use super::super::media::processing::{ProcessingJob, VideoJobKind, PROCESSING};
use super::super::media::SourceError;
use super::super::state::AdvertisingState;
use super::super::support::notify::{self, Notice};
use super::proof::{make_frames, FramesFailed, ProofFrames};
use crate::core::jobs::{Done, Job, JobFailure, JobResult, NewJob};
use crate::providers::storage::StorageKey;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde::{Deserialize, Serialize};
use switchboard_entities::advertising::subscription::{self, SubscriptionStatus};
use uuid::Uuid;

pub const PROCESSED: &str = "video-processed";

/// What a poster reads when their video could not be made.
const BAD_SOURCE: &str = "the ad's video could not be used; we have told the advertiser";
const GAVE_UP: &str = "your video could not be made right now; please subscribe again later";

#[derive(Debug, Serialize, Deserialize)]
pub struct ProcessedJob {
    pub subscription_id: Uuid,
    /// `ready` or `failed`.
    pub status: String,
    pub video_key: Option<String>,
    /// `proof::ProofFrames` as JSON (absent in jobs queued before there were key frames).
    #[serde(default)]
    pub proof_frames: Option<String>,
    pub reason: Option<String>,
}

pub fn register(st: &AdvertisingState) {
    super::super::jobs::handle(
        st,
        PROCESSING,
        |s, job| async move { process(&s, job).await },
    );
    // A video job holds a job slot only while it can have the encoder: the rest wait in
    // the queue, and mails, invoices and screenshot checks take the free slots.
    st.core
        .jobs
        .limit_runs(PROCESSING, st.providers.settings.video.max_concurrent);
    super::super::jobs::handle(
        st,
        PROCESSED,
        |s, job| async move { processed(&s, job).await },
    );
}

async fn process(st: &AdvertisingState, job: Job) -> JobResult {
    let p: ProcessingJob = job.payload()?;
    if p.kind == VideoJobKind::Ad {
        return super::super::campaigns::video::process(st, &p, &job).await;
    }
    let sub_id = p
        .subscription_id
        .ok_or_else(|| JobFailure::permanent("a personalised video needs subscription_id"))?;
    let db = &st.core.db;
    let Some(sub) = subscription::Entity::find_by_id(sub_id)
        .one(db)
        .await
        .map_err(JobFailure::retry)?
    else {
        return Ok(Done::default());
    };
    if sub.status != SubscriptionStatus::Processing {
        return Ok(Done::default());
    }
    let last_try = job.attempt >= job.max_attempts;
    let outcome = match make(st, &p.video_url, sub_id, &sub.proof_code).await {
        Ok((key, frames)) => ProcessedJob {
            subscription_id: sub_id,
            status: SubscriptionStatus::Ready.as_str().into(),
            video_key: Some(key),
            proof_frames: Some(frames.to_json()),
            reason: None,
        },
        Err(e) if last_try => {
            tracing::warn!(subscription = %sub_id, error = %e.detail, "personalised video failed");
            ProcessedJob {
                subscription_id: sub_id,
                status: SubscriptionStatus::Failed.as_str().into(),
                video_key: None,
                proof_frames: None,
                reason: Some(if e.permanent { BAD_SOURCE } else { GAVE_UP }.into()),
            }
        }
        Err(e) => return Err(JobFailure::retry(e.detail)),
    };
    let next = NewJob::new(
        PROCESSED,
        serde_json::to_value(&outcome).map_err(JobFailure::retry)?,
    )
    .key(format!("{PROCESSED}:{sub_id}"));
    st.core
        .jobs
        .enqueue(db, next)
        .await
        .map_err(JobFailure::retry)?;
    Ok(Done::from(1))
}

/// Why making a video failed: whether trying again could help, and the detail for the log.
struct Failed {
    permanent: bool,
    detail: String,
}

impl From<SourceError> for Failed {
    fn from(e: SourceError) -> Self {
        Self {
            permanent: e.is_permanent(),
            detail: e.to_string(),
        }
    }
}

impl From<FramesFailed> for Failed {
    fn from(e: FramesFailed) -> Self {
        Self {
            permanent: e.permanent,
            detail: e.detail,
        }
    }
}

/// Burns `code` into the source video and stores it and its key frames; answers the video's
/// storage key and the frames.
async fn make(
    st: &AdvertisingState,
    source: &str,
    sub: Uuid,
    code: &str,
) -> Result<(String, ProofFrames), Failed> {
    let input = st.media.source_to_temp(source).await?;
    let dir = tempfile::tempdir().map_err(|e| Failed {
        permanent: false,
        detail: e.to_string(),
    })?;
    let output = dir.path().join("personalised.mp4");
    let made = st
        .media
        .video
        .personalise(&input, &output, code)
        .await
        .map_err(|e| Failed {
            permanent: e.is_permanent(),
            detail: e.to_string(),
        })?;
    let frames = make_frames(
        st,
        sub,
        &output,
        made.info.duration_secs,
        Some(made.code_box),
    )
    .await?;
    let key = StorageKey::parse(&format!("videos/personalised/{sub}.mp4")).map_err(|e| Failed {
        permanent: true,
        detail: e.to_string(),
    })?;
    st.media
        .storage
        .put_file(&key, &output)
        .await
        .map_err(|e| Failed {
            permanent: false,
            detail: e.to_string(),
        })?;
    Ok((key.as_str().to_owned(), frames))
}

async fn processed(st: &AdvertisingState, job: Job) -> JobResult {
    let p: ProcessedJob = job.payload()?;
    // Anything but `ready` in the payload fails the video, as it always has.
    let ready = SubscriptionStatus::parse(&p.status) == Some(SubscriptionStatus::Ready);
    let to = if ready {
        SubscriptionStatus::Ready
    } else {
        SubscriptionStatus::Failed
    };
    let now = st.core.now();
    let txn = crate::core::db::begin_write(&st.core.db)
        .await
        .map_err(JobFailure::retry)?;
    let done = subscription::Entity::update_many()
        .col_expr(subscription::Column::Status, Expr::value(to))
        .col_expr(
            subscription::Column::VideoKey,
            Expr::value(p.video_key.clone()),
        )
        .col_expr(
            subscription::Column::FailureReason,
            Expr::value(p.reason.clone()),
        )
        .col_expr(
            subscription::Column::ProofFrames,
            Expr::value(p.proof_frames.clone()),
        )
        .col_expr(subscription::Column::UpdatedAt, Expr::value(now))
        .filter(subscription::Column::Id.eq(p.subscription_id))
        .filter(subscription::Column::Status.eq(SubscriptionStatus::Processing))
        .exec(&*txn)
        .await
        .map_err(JobFailure::retry)?;
    if done.rows_affected == 0 {
        return Ok(Done::default());
    }
    let sub = subscription::Entity::find_by_id(p.subscription_id)
        .one(&*txn)
        .await
        .map_err(JobFailure::retry)?
        .ok_or_else(|| JobFailure::permanent("the subscription vanished"))?;
    let notice = if ready {
        Notice::new(
            "video_ready",
            "Your video is ready",
            format!(
                "Your personalised video is ready to post. Open the app to download it. \
                 Your screenshot of the post must show the video with its code {}.",
                sub.proof_code
            ),
        )
        .with("proofCode", sub.proof_code.clone())
    } else {
        Notice::new(
            "video_failed",
            "Your video could not be made",
            p.reason.clone().unwrap_or_else(|| GAVE_UP.into()),
        )
    }
    .with("subscriptionId", sub.id)
    .with("adId", sub.ad_id);
    notify::poster(st, &*txn, sub.poster_id, notice)
        .await
        .map_err(|e| JobFailure::retry(e.to_string()))?;
    txn.commit().await.map_err(JobFailure::retry)?;
    st.core.jobs.wake();
    Ok(Done::from(1))
}
