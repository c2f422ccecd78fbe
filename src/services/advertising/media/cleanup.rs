//! Storage keeps only the media a record points at: an ad's source, transcode and
//! thumbnail, a subscription's personalised video and key frames, a screenshot's image.
//!
//! Writes that drop an object remove it right after they commit ([`remove`]); the
//! recurring `advertising.media-sweep` catches what a crash between the two left, and
//! uploads whose row was never written (older than `orphan_grace_secs`). It also removes
//! rejected and deleted ads' media `retention_days` after their last change (the rows and
//! their money stay; the ad's video status becomes `purged`). Everything it reads is in
//! the database and storage, and the job queue runs it on one node at a time.

use super::super::state::AdvertisingState;
use super::super::subscriptions::proof::ProofFrames;
use crate::core::jobs::{Done, JobFailure};
use crate::providers::storage::StorageKey;
use chrono::Duration;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QuerySelect};
use std::collections::HashSet;
use switchboard_entities::advertising::ad::{AdStatus, VideoStatus};
use switchboard_entities::advertising::{ad, screenshot, subscription};

pub const SWEEP: &str = "advertising.media-sweep";

/// Folders the advertising service writes media to.
const FOLDERS: [&str; 3] = ["videos/ads", "videos/personalised", "screenshots"];

/// Removes the objects of these keys that are storage keys (a URL source is not ours);
/// a failure is logged and left to the sweep.
pub async fn remove<'a>(st: &AdvertisingState, keys: impl IntoIterator<Item = Option<&'a str>>) {
    for raw in keys.into_iter().flatten() {
        let Ok(key) = StorageKey::parse(raw) else {
            continue;
        };
        if let Err(e) = st.media.storage.delete(&key).await {
            tracing::warn!(key = %raw, error = %e, "could not remove a dropped media object");
        }
    }
}

pub fn register(st: &AdvertisingState) {
    let every = std::time::Duration::from_secs(st.cfg.media.sweep_every_secs.max(60));
    let s = st.clone();
    st.core.jobs.every(SWEEP, every, move |_| {
        let s = s.clone();
        async move {
            let purged = purge_retained(&s).await.map_err(JobFailure::retry)?;
            let orphans = sweep_orphans(&s).await.map_err(JobFailure::retry)?;
            if purged + orphans > 0 {
                tracing::info!(purged, orphans, "media sweep removed objects");
            }
            Ok(Done::from(purged + orphans))
        }
    });
}

type SweepResult = Result<u64, Box<dyn std::error::Error + Send + Sync>>;

/// Rejected and deleted ads past the retention: their media go, their rows stay.
async fn purge_retained(st: &AdvertisingState) -> SweepResult {
    let db = &st.core.db;
    let before = st.core.now() - Duration::days(st.cfg.media.retention_days.max(0));
    let due = ad::Entity::find()
        .filter(ad::Column::Status.is_in([AdStatus::Rejected, AdStatus::Deleted]))
        .filter(ad::Column::UpdatedAt.lt(before))
        .filter(
            sea_orm::Condition::any()
                .add(ad::Column::VideoStatus.is_null())
                .add(ad::Column::VideoStatus.ne(VideoStatus::Purged)),
        )
        .limit(500)
        .all(db)
        .await?;
    let mut removed = 0;
    for a in due {
        remove(
            st,
            [
                Some(a.video_source.as_str()),
                a.video_key.as_deref(),
                a.thumbnail_key.as_deref(),
            ],
        )
        .await;
        // Only if nothing changed it meanwhile (an administrator's restore, say).
        let done = ad::Entity::update_many()
            .col_expr(ad::Column::VideoStatus, Expr::value(VideoStatus::Purged))
            .col_expr(ad::Column::VideoKey, Expr::value(Option::<String>::None))
            .col_expr(
                ad::Column::ThumbnailKey,
                Expr::value(Option::<String>::None),
            )
            .filter(ad::Column::Id.eq(a.id))
            .filter(ad::Column::UpdatedAt.eq(a.updated_at))
            .exec(db)
            .await?;
        removed += done.rows_affected;
    }
    Ok(removed)
}

/// Objects in the service's folders that no record points at, older than the grace.
async fn sweep_orphans(st: &AdvertisingState) -> SweepResult {
    let grace = st.core.now() - Duration::seconds(st.cfg.media.orphan_grace_secs.max(0));
    let mut found = Vec::new();
    for folder in FOLDERS {
        found.extend(
            st.media
                .storage
                .list(folder)
                .await?
                .into_iter()
                .filter(|o| o.modified < grace),
        );
    }
    if found.is_empty() {
        return Ok(0);
    }
    let kept = referenced(st).await?;
    let mut removed = 0;
    for o in found.iter().filter(|o| !kept.contains(&o.key)) {
        remove(st, [Some(o.key.as_str())]).await;
        removed += 1;
    }
    Ok(removed)
}

/// Every storage key a record points at.
async fn referenced(st: &AdvertisingState) -> Result<HashSet<String>, sea_orm::DbErr> {
    let db = &st.core.db;
    let mut kept = HashSet::new();
    let ads: Vec<(String, Option<String>, Option<String>)> = ad::Entity::find()
        .select_only()
        .column(ad::Column::VideoSource)
        .column(ad::Column::VideoKey)
        .column(ad::Column::ThumbnailKey)
        .into_tuple()
        .all(db)
        .await?;
    for (source, video, thumb) in ads {
        kept.insert(source);
        kept.extend(video);
        kept.extend(thumb);
    }
    let subs: Vec<(Option<String>, Option<String>)> = subscription::Entity::find()
        .select_only()
        .column(subscription::Column::VideoKey)
        .column(subscription::Column::ProofFrames)
        .into_tuple()
        .all(db)
        .await?;
    for (video, frames) in subs {
        kept.extend(video);
        kept.extend(ProofFrames::parse(frames.as_deref()).map(|f| f.key));
    }
    let shots: Vec<String> = screenshot::Entity::find()
        .select_only()
        .column(screenshot::Column::ImageKey)
        .into_tuple()
        .all(db)
        .await?;
    kept.extend(shots);
    Ok(kept)
}
