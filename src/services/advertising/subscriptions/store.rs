//! Subscriptions' rows: one per poster per ad, made with the job that personalises the
//! poster's video in the same transaction, so no subscription waits on a job never queued.

use super::super::error::{AdvertisingError, Record, Result};
use super::super::media::processing::{ProcessingJob, PROCESSING};
use super::super::state::AdvertisingState;
use crate::core::jobs::NewJob;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DbErr, EntityTrait, PaginatorTrait,
    QueryFilter, QuerySelect, Set, SqlErr,
};
use switchboard_entities::advertising::ad::AdStatus;
pub use switchboard_entities::advertising::subscription::SubscriptionStatus;
use switchboard_entities::advertising::{ad, poster, subscription};
use uuid::Uuid;

/// Subscribes the poster to the ad (open to new work) and queues their video.
pub async fn create(
    st: &AdvertisingState,
    poster_id: Uuid,
    ad_id: Uuid,
    phone_info: String,
) -> Result<subscription::Model> {
    let now = st.core.now();
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let a = ad::Entity::find_by_id(ad_id)
        .filter(ad::Column::Status.ne(AdStatus::Deleted))
        .one(&*txn)
        .await?
        .ok_or(AdvertisingError::NotFound(Record::Ad))?;
    let taken = subscription::Entity::find()
        .filter(subscription::Column::PosterId.eq(poster_id))
        .filter(subscription::Column::AdId.eq(ad_id))
        .count(&*txn)
        .await?
        > 0;
    if taken {
        return Err(AdvertisingError::AlreadySubscribed.into());
    }
    if !a.listed {
        return Err(AdvertisingError::AdNotAvailable.into());
    }
    let poster = poster::Entity::find_by_id(poster_id)
        .one(&*txn)
        .await?
        .ok_or(AdvertisingError::NotFound(Record::User))?;
    // Ads are bought for one country's audience: nobody elsewhere may earn from them.
    if !poster.country.eq_ignore_ascii_case(&a.country) {
        return Err(AdvertisingError::NotInCountry.into());
    }
    let referral = poster.referral_code;
    let taken: Vec<String> = subscription::Entity::find()
        .select_only()
        .column(subscription::Column::ProofCode)
        .filter(subscription::Column::PosterId.eq(poster_id))
        .into_tuple()
        .all(&*txn)
        .await?;
    let id = Uuid::new_v4();
    let row = subscription::ActiveModel {
        id: Set(id),
        poster_id: Set(poster_id),
        ad_id: Set(ad_id),
        phone_info: Set(phone_info),
        status: Set(SubscriptionStatus::Processing),
        failure_reason: Set(None),
        video_key: Set(None),
        proof_code: Set(super::proof::new_code(&referral, &taken)),
        proof_frames: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&*txn)
    .await
    .map_err(|e| match e.sql_err() {
        // Two subscribe requests at once: the second meets the unique (poster, ad).
        Some(SqlErr::UniqueConstraintViolation(_)) => AdvertisingError::AlreadySubscribed.into(),
        _ => crate::core::error::ApiError::from(e),
    })?;
    let job = ProcessingJob::personalised(&a, id);
    st.core
        .jobs
        .enqueue(
            &*txn,
            NewJob::new(PROCESSING, serde_json::to_value(job).unwrap_or_default())
                .key(format!("{PROCESSING}:{id}"))
                .max_attempts(st.cfg.video_attempts),
        )
        .await?;
    txn.commit().await?;
    st.core.jobs.wake();
    Ok(row)
}

/// Whether the poster subscribed to the ad (a subscription shows them an ad no longer listed).
pub async fn subscribed(
    db: &impl ConnectionTrait,
    ad_id: Uuid,
    poster_id: Uuid,
) -> std::result::Result<bool, DbErr> {
    Ok(subscription::Entity::find()
        .filter(subscription::Column::AdId.eq(ad_id))
        .filter(subscription::Column::PosterId.eq(poster_id))
        .count(db)
        .await?
        > 0)
}

/// The storage key of subscription `id`'s personalised video, once it is ready.
pub async fn ready_video(
    db: &impl ConnectionTrait,
    id: Uuid,
) -> std::result::Result<Option<String>, DbErr> {
    Ok(subscription::Entity::find_by_id(id)
        .filter(subscription::Column::Status.eq(SubscriptionStatus::Ready))
        .one(db)
        .await?
        .and_then(|s| s.video_key))
}
