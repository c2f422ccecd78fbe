//! A poster's own records (subscriptions, screenshots): listed newest first with an optional
//! status, and read by id, where another poster's record answers as unknown.

use super::error::{AdvertisingError, Record, Result};
use super::state::AdvertisingState;
use crate::core::page::{Page, Window};
use sea_orm::{ColumnTrait, EntityTrait, FromQueryResult, QueryFilter};
use switchboard_entities::advertising::{screenshot, subscription};
use uuid::Uuid;

/// A table of records that each belong to one poster.
pub trait Owned: EntityTrait<PrimaryKey: sea_orm::PrimaryKeyTrait<ValueType = Uuid>>
where
    Self::Model: FromQueryResult + Send + Sync,
{
    const RECORD: Record;
    /// The typed state its `status` column holds.
    type Status: Into<sea_orm::Value>;
    const POSTER: Self::Column;
    const STATUS: Self::Column;
    const CREATED_AT: Self::Column;
    const ID: Self::Column;
}

impl Owned for subscription::Entity {
    const RECORD: Record = Record::Subscription;
    type Status = subscription::SubscriptionStatus;
    const POSTER: Self::Column = subscription::Column::PosterId;
    const STATUS: Self::Column = subscription::Column::Status;
    const CREATED_AT: Self::Column = subscription::Column::CreatedAt;
    const ID: Self::Column = subscription::Column::Id;
}

impl Owned for screenshot::Entity {
    const RECORD: Record = Record::Screenshot;
    type Status = screenshot::ScreenshotStatus;
    const POSTER: Self::Column = screenshot::Column::PosterId;
    const STATUS: Self::Column = screenshot::Column::Status;
    const CREATED_AT: Self::Column = screenshot::Column::CreatedAt;
    const ID: Self::Column = screenshot::Column::Id;
}

/// The poster's records of `status` (all without one), newest first.
pub async fn list<E: Owned>(
    st: &AdvertisingState,
    poster: Uuid,
    status: Option<E::Status>,
    window: Window,
) -> Result<Page<E::Model>>
where
    E::Model: FromQueryResult + Send + Sync,
{
    let mut select = E::find().filter(E::POSTER.eq(poster));
    if let Some(s) = status {
        select = select.filter(E::STATUS.eq(s));
    }
    super::wire::newest_first(&st.core.db, select, E::CREATED_AT, E::ID, window).await
}

/// The poster's record `raw_id`.
pub async fn get<E: Owned>(st: &AdvertisingState, poster: Uuid, raw_id: &str) -> Result<E::Model>
where
    E::Model: FromQueryResult + Send + Sync,
{
    let id = Uuid::parse_str(raw_id.trim()).map_err(|_| AdvertisingError::NotFound(E::RECORD))?;
    E::find_by_id(id)
        .filter(E::POSTER.eq(poster))
        .one(&st.core.db)
        .await?
        .ok_or_else(|| AdvertisingError::NotFound(E::RECORD).into())
}
