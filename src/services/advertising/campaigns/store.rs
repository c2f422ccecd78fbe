//! Campaigns' rows: an ad with its advertiser. Making or editing one leaves it `pending`
//! (not listed) and, when a video came, queues its `video-processing` job in the same
//! transaction.

use super::super::error::{AdvertisingError, Record, Result};
use super::super::media::processing::{ProcessingJob, PROCESSING};
use super::super::state::AdvertisingState;
use super::super::wire::Cents;
use super::input::{Fields, Video};
use crate::core::error::ApiError;
use crate::core::jobs::NewJob;
use crate::core::page::{Page, Window};
use crate::providers::storage::StorageKey;
use chrono::{DateTime, Utc};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, Set,
};
use switchboard_entities::advertising::ad::{AdStatus, VideoStatus};
use switchboard_entities::advertising::{ad, ad_view, category};
use uuid::Uuid;

fn invalid(field: &'static str, message: &str) -> ApiError {
    AdvertisingError::invalid(field, message).into()
}

/// Where the video is kept for the job: a URL as given, an upload copied into storage.
async fn video_source(st: &AdvertisingState, video: Video) -> Result<String> {
    match video {
        Video::Url(url) => Ok(url),
        Video::Upload(path) => {
            // Over a limit is refused now; what ffprobe cannot read at all (not a video, a
            // playlist) is left to the video job, which says why on the ad.
            if let Ok(info) = st.media.video.probe(&path).await {
                if let Some(why) = super::super::media::source::over_limit(&info, &st.cfg.media) {
                    return Err(invalid("video", &why));
                }
            }
            let key = StorageKey::parse(&format!("videos/ads/uploads/{}", Uuid::new_v4().simple()))
                .map_err(ApiError::internal)?;
            st.media
                .storage
                .put_file(&key, &path)
                .await
                .map_err(ApiError::internal)?;
            Ok(key.as_str().to_owned())
        }
    }
}

async fn check_category(db: &impl ConnectionTrait, id: &Option<String>) -> Result<()> {
    if let Some(id) = id {
        if category::Entity::find_by_id(id.clone())
            .one(db)
            .await?
            .is_none()
        {
            return Err(invalid("categoryId", "is not a known category"));
        }
    }
    Ok(())
}

async fn queue_video(
    st: &AdvertisingState,
    db: &impl ConnectionTrait,
    a: &ad::Model,
) -> Result<()> {
    let payload = serde_json::to_value(ProcessingJob::ad(a)).map_err(ApiError::internal)?;
    st.core
        .jobs
        .enqueue(
            db,
            NewJob::new(PROCESSING, payload).max_attempts(st.cfg.video_attempts),
        )
        .await?;
    Ok(())
}

fn demographics_text(f: &Fields) -> Result<Option<String>> {
    f.demographics
        .as_ref()
        .map(|d| serde_json::to_string(d).map_err(ApiError::internal))
        .transpose()
}

/// Makes the advertiser's campaign: `pending`, nothing funded, the video processing.
pub async fn create(st: &AdvertisingState, advertiser: Uuid, mut f: Fields) -> Result<ad::Model> {
    let title = f
        .title
        .take()
        .ok_or_else(|| invalid("title", "is required"))?;
    let video = f
        .video
        .take()
        .ok_or_else(|| invalid("video", "is required: an https URL, or a file part"))?;
    let budget = f
        .budget
        .ok_or_else(|| invalid("budgetUsd", "is required"))?;
    let country = f
        .country
        .take()
        .ok_or_else(|| invalid("countryCode", "is required"))?;
    if f.demographics.is_none() {
        return Err(invalid("demographics", "is required"));
    }
    let payout = match f.payout {
        Some(p) => p,
        None => super::super::wire::parse_usd(
            "payoutUsd",
            &serde_json::Value::String(st.cfg.default_payout_usd.clone()),
        )?,
    };
    if budget.0 < payout.0 {
        return Err(invalid("budgetUsd", "must cover at least one payout"));
    }
    let category = f.category.take().flatten();
    check_category(&st.core.db, &category).await?;
    let source = video_source(st, video).await?;
    let now = st.core.now();
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let row = ad::ActiveModel {
        id: Set(Uuid::new_v4()),
        advertiser_id: Set(Some(advertiser)),
        title: Set(title),
        description: Set(f.description.take().flatten()),
        category_id: Set(category),
        country: Set(country),
        video_source: Set(source),
        payout_cents: Set(payout.0),
        budget_cents: Set(budget.0),
        funded_cents: Set(0),
        reserved_cents: Set(0),
        spent_cents: Set(0),
        status: Set(AdStatus::Pending),
        status_reason: Set(None),
        listed: Set(false),
        demographics: Set(demographics_text(&f)?),
        video_status: Set(Some(VideoStatus::Processing)),
        video_error: Set(None),
        video_key: Set(None),
        thumbnail_key: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&*txn)
    .await?;
    queue_video(st, &*txn, &row).await?;
    txn.commit().await?;
    st.core.jobs.wake();
    Ok(row)
}

/// The advertiser's ad, not deleted; another's (or an unknown id) is 404.
pub async fn owned(st: &AdvertisingState, advertiser: Uuid, id: &str) -> Result<ad::Model> {
    let id = super::super::wire::parse_id(id, Record::Ad)?;
    let a = super::super::ads::store::get(st, id).await?;
    if a.advertiser_id != Some(advertiser) {
        return Err(AdvertisingError::NotFound(Record::Ad).into());
    }
    Ok(a)
}

/// Refuses an edit of an ad in a status an edit may not leave: an edit sends the ad back to
/// review, and a rejected, paused or deleted ad is staff's or money's decision, which an
/// edit must not undo.
pub fn editable(a: &ad::Model) -> Result<()> {
    if a.status.can_move_to(AdStatus::Pending) {
        return Ok(());
    }
    Err(not_editable(a.status))
}

fn not_editable(status: AdStatus) -> ApiError {
    ApiError::new(
        crate::core::error::Kind::Conflict,
        format!("this ad is {status}: it cannot be edited"),
    )
    .code("ad_not_editable")
}

/// Changes the given fields and sends the ad back to `pending` (unlisted) for review; a
/// new video is processed again. The budget cannot go below what is already funded.
///
/// One conditional write on the status the edit began from (read before the body, which
/// may take minutes to arrive): a delete, rejection or pause that committed meanwhile makes
/// it write nothing, and the answer says so. The upload it stored is then removed; when it
/// lands, the video it replaced is.
pub async fn update(st: &AdvertisingState, current: ad::Model, mut f: Fields) -> Result<ad::Model> {
    let payout = f.payout.unwrap_or(Cents(current.payout_cents));
    let budget = f.budget.unwrap_or(Cents(current.budget_cents));
    if budget.0 < payout.0 {
        return Err(invalid("budgetUsd", "must cover at least one payout"));
    }
    if budget.0 < current.funded_cents {
        return Err(invalid(
            "budgetUsd",
            "cannot be less than what is already funded",
        ));
    }
    if let Some(c) = &f.category {
        check_category(&st.core.db, c).await?;
    }
    let source = match f.video.take() {
        Some(v) => Some(video_source(st, v).await?),
        None => None,
    };
    let now = st.core.now();
    let mut row = <ad::ActiveModel as Default>::default();
    if let Some(t) = f.title.take() {
        row.title = Set(t);
    }
    if let Some(d) = f.description.take() {
        row.description = Set(d);
    }
    if let Some(c) = f.category.take() {
        row.category_id = Set(c);
    }
    if let Some(c) = f.country.take() {
        row.country = Set(c);
    }
    if let Some(d) = demographics_text(&f)? {
        row.demographics = Set(Some(d));
    }
    row.payout_cents = Set(payout.0);
    row.budget_cents = Set(budget.0);
    row.status = Set(AdStatus::Pending);
    row.status_reason = Set(None);
    row.listed = Set(false);
    row.updated_at = Set(now);
    if let Some(s) = &source {
        row.video_source = Set(s.clone());
        row.video_status = Set(Some(VideoStatus::Processing));
        row.video_error = Set(None);
        row.video_key = Set(None);
        row.thumbnail_key = Set(None);
    }
    let written = write_edit(st, &current, row, budget).await;
    let updated = match written {
        Ok(a) => a,
        Err(e) => {
            // Nothing points at the upload: it goes now rather than at the next sweep.
            if let Some(s) = &source {
                super::super::media::cleanup::remove(st, [Some(s.as_str())]).await;
            }
            return Err(e);
        }
    };
    if source.is_some() {
        super::super::media::cleanup::remove(
            st,
            [
                Some(current.video_source.as_str()),
                current.video_key.as_deref(),
                current.thumbnail_key.as_deref(),
            ],
        )
        .await;
    }
    st.core.jobs.wake();
    Ok(updated)
}

/// The edit's one conditional write, with its video job in the same transaction.
async fn write_edit(
    st: &AdvertisingState,
    current: &ad::Model,
    row: ad::ActiveModel,
    budget: Cents,
) -> Result<ad::Model> {
    let new_video = row.video_source.is_set();
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let done = ad::Entity::update_many()
        .set(row)
        .filter(ad::Column::Id.eq(current.id))
        .filter(ad::Column::Status.eq(current.status))
        .filter(ad::Column::FundedCents.lte(budget.0))
        .exec(&*txn)
        .await?;
    let now = super::super::ads::store::get_in(&*txn, current.id).await?;
    if done.rows_affected != 1 {
        return Err(if now.status == AdStatus::Deleted {
            AdvertisingError::NotFound(Record::Ad).into()
        } else if now.status != current.status {
            ApiError::new(
                crate::core::error::Kind::Conflict,
                format!(
                    "this ad became {} while the edit was sent; nothing was changed",
                    now.status
                ),
            )
            .code("ad_changed")
        } else {
            invalid("budgetUsd", "cannot be less than what is already funded")
        });
    }
    if new_video {
        queue_video(st, &*txn, &now).await?;
    }
    txn.commit().await?;
    Ok(now)
}

/// The advertiser's ads (deleted ones too: their money is theirs to see), newest first.
pub async fn list(
    st: &AdvertisingState,
    advertiser: Uuid,
    window: Window,
) -> Result<Page<ad::Model>> {
    super::super::wire::newest_first(
        &st.core.db,
        ad::Entity::find().filter(ad::Column::AdvertiserId.eq(advertiser)),
        ad::Column::CreatedAt,
        ad::Column::Id,
        window,
    )
    .await
}

/// Counts the poster's view of the ad: once per poster per day.
pub async fn viewed(
    db: &impl ConnectionTrait,
    ad_id: Uuid,
    poster_id: Uuid,
    now: DateTime<Utc>,
) -> Result<()> {
    ad_view::Entity::insert(ad_view::ActiveModel {
        ad_id: Set(ad_id),
        poster_id: Set(poster_id),
        day: Set(now.format("%Y-%m-%d").to_string()),
    })
    .on_conflict_do_nothing_on([
        ad_view::Column::AdId,
        ad_view::Column::PosterId,
        ad_view::Column::Day,
    ])
    .exec(db)
    .await?;
    Ok(())
}

pub async fn views(db: &impl ConnectionTrait, ad_id: Uuid) -> Result<u64> {
    Ok(ad_view::Entity::find()
        .filter(ad_view::Column::AdId.eq(ad_id))
        .count(db)
        .await?)
}
