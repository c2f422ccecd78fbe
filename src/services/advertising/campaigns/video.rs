//! An advertiser's video, as a `video-processing` job of `type: "ad"` (`{ad_id, video_url,
//! type: "ad"}`): ffprobe checks it is a video, ffmpeg makes an H.264/AAC MP4 of at most
//! 720p and a JPEG thumbnail, both stored. The ad's `video_status` becomes `ready`, or
//! `failed` with a reason the advertiser reads (the ad stays `pending`). A job for a video
//! the ad no longer has (an edit replaced it) does nothing.

use super::super::media::processing::ProcessingJob;
use super::super::state::AdvertisingState;
use crate::core::jobs::{Done, Job, JobFailure, JobResult};
use crate::providers::storage::StorageKey;
use crate::providers::video::VideoError;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use switchboard_entities::advertising::ad::{self, AdStatus, VideoStatus};

/// Why the advertiser's video failed, in their words, and whether another try could help.
struct Failed {
    permanent: bool,
    reason: String,
}

fn tool(e: impl std::fmt::Display) -> Failed {
    Failed {
        permanent: false,
        reason: e.to_string(),
    }
}

pub async fn process(st: &AdvertisingState, p: &ProcessingJob, job: &Job) -> JobResult {
    let db = &st.core.db;
    let current = ad::Entity::find_by_id(p.ad_id)
        .one(db)
        .await?
        .filter(|a| a.video_source == p.video_url && a.status != AdStatus::Deleted);
    if current.is_none() {
        return Ok(Done::default());
    }
    let last_try = job.attempt >= job.max_attempts;
    let (status, key, thumb, error) = match make(st, p, job).await {
        Ok((key, thumb)) => (VideoStatus::Ready, Some(key), Some(thumb), None),
        Err(e) if e.permanent || last_try => {
            tracing::warn!(ad = %p.ad_id, error = %e.reason, "ad video failed");
            let reason = if e.permanent {
                format!("the video could not be used: {}", e.reason)
            } else {
                "the video could not be processed right now; upload it again later".into()
            };
            (VideoStatus::Failed, None, None, Some(reason))
        }
        Err(e) => return Err(JobFailure::retry(e.reason)),
    };
    let done = ad::Entity::update_many()
        .col_expr(ad::Column::VideoStatus, Expr::value(status))
        .col_expr(ad::Column::VideoKey, Expr::value(key.clone()))
        .col_expr(ad::Column::ThumbnailKey, Expr::value(thumb.clone()))
        .col_expr(ad::Column::VideoError, Expr::value(error))
        .col_expr(ad::Column::UpdatedAt, Expr::value(st.core.now()))
        .filter(ad::Column::Id.eq(p.ad_id))
        .filter(ad::Column::VideoSource.eq(p.video_url.as_str()))
        .filter(ad::Column::Status.ne(AdStatus::Deleted))
        .exec(db)
        .await?;
    if done.rows_affected == 0 {
        // An edit replaced the video (or the ad was deleted) while this one was made.
        super::super::media::cleanup::remove(st, [key.as_deref(), thumb.as_deref()]).await;
        return Ok(Done::default());
    }
    Ok(Done::from(1))
}

/// Transcodes the source and stores the video and thumbnail; answers their keys.
async fn make(
    st: &AdvertisingState,
    p: &ProcessingJob,
    job: &Job,
) -> Result<(String, String), Failed> {
    let input = st
        .media
        .source_to_temp(&p.video_url)
        .await
        .map_err(|e| Failed {
            permanent: e.is_permanent(),
            reason: e.to_string(),
        })?;
    // Checked again here: a URL source is first seen by this job.
    let info = st.media.video.probe(&input).await.map_err(bad_source)?;
    if let Some(why) = super::super::media::source::over_limit(&info, &st.cfg.media) {
        return Err(Failed {
            permanent: true,
            reason: format!("it {why}"),
        });
    }
    let dir = tempfile::tempdir().map_err(tool)?;
    let (video, thumb) = (dir.path().join("ad.mp4"), dir.path().join("ad.jpg"));
    st.media
        .video
        .transcode_ad(&input, &video, &thumb)
        .await
        .map_err(bad_source)?;
    // Named by the job, so a retaken job never overwrites a video an ad already shows.
    let base = format!("videos/ads/{}/{}", p.ad_id.simple(), job.id.0.simple());
    let mut keys = Vec::new();
    for (ext, path) in [("mp4", &video), ("jpg", &thumb)] {
        let key = StorageKey::parse(&format!("{base}.{ext}")).map_err(tool)?;
        st.media.storage.put_file(&key, path).await.map_err(tool)?;
        keys.push(key.as_str().to_owned());
    }
    let thumb = keys.pop().unwrap_or_default();
    let video = keys.pop().unwrap_or_default();
    Ok((video, thumb))
}

/// A video error as the advertiser reads it: an unreadable source is for good.
fn bad_source(e: VideoError) -> Failed {
    match e {
        VideoError::BadSource(detail) => Failed {
            permanent: true,
            reason: format!("it is not a readable video ({})", first_line(&detail)),
        },
        other => Failed {
            permanent: other.is_permanent(),
            reason: other.to_string(),
        },
    }
}

fn first_line(s: &str) -> &str {
    let line = s
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("unknown format")
        .trim();
    // ffprobe names the temporary file first: the advertiser needs only what it said.
    line.rsplit_once(": ").map_or(line, |(_, what)| what)
}
