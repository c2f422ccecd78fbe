//! Posters' rows: made on first sign-in with a unique referral code, their profile changes,
//! and their one device token.

use super::super::error::Result;
use super::super::state::AdvertisingState;
use super::domain::referral_code;
use crate::core::phone::PhoneNumber;
use chrono::{DateTime, Utc};
use sea_orm::sea_query::OnConflict;
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set, SqlErr};
use switchboard_entities::advertising::poster::{KycStatus, PosterStatus};
use switchboard_entities::advertising::{device_token, poster};
use uuid::Uuid;

/// Tries before giving up on a free referral code (31^8 codes: a clash is already rare).
const CODE_TRIES: usize = 8;

/// The poster with this phone, made now (in `country`) if there is none.
pub async fn find_or_create(
    st: &AdvertisingState,
    phone: &PhoneNumber,
    country: &str,
) -> Result<poster::Model> {
    let db = &st.core.db;
    let by_phone = || poster::Entity::find().filter(poster::Column::Phone.eq(phone.as_str()));
    if let Some(p) = by_phone().one(db).await? {
        return Ok(p);
    }
    let now = st.core.now();
    for _ in 0..CODE_TRIES {
        let row = poster::ActiveModel {
            id: Set(Uuid::new_v4()),
            phone: Set(phone.as_str().to_owned()),
            country: Set(country.to_owned()),
            name: Set(None),
            email: Set(None),
            avatar_url: Set(None),
            referral_code: Set(referral_code()),
            status: Set(PosterStatus::Active),
            kyc_status: Set(KycStatus::NotStarted),
            created_at: Set(now),
            updated_at: Set(now),
        };
        match row.insert(db).await {
            Ok(p) => return Ok(p),
            // The phone won a race (another sign-in made it) or the code is taken.
            Err(e) if matches!(e.sql_err(), Some(SqlErr::UniqueConstraintViolation(_))) => {
                if let Some(p) = by_phone().one(db).await? {
                    return Ok(p);
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(crate::core::error::ApiError::internal(
        std::io::Error::other("no free referral code after several tries"),
    ))
}

/// A profile change: each field `None` stays; `Some(None)` clears an optional one.
#[derive(Default)]
pub struct ProfileChange {
    pub name: Option<String>,
    pub email: Option<Option<String>>,
    pub avatar_url: Option<Option<String>>,
    pub country: Option<String>,
}

pub async fn update_profile(
    st: &AdvertisingState,
    current: &poster::Model,
    change: ProfileChange,
) -> Result<poster::Model> {
    let mut row: poster::ActiveModel = current.clone().into();
    if let Some(name) = change.name {
        row.name = Set(Some(name));
    }
    if let Some(email) = change.email {
        row.email = Set(email);
    }
    if let Some(avatar) = change.avatar_url {
        row.avatar_url = Set(avatar);
    }
    if let Some(country) = change.country {
        row.country = Set(country);
    }
    row.updated_at = Set(st.core.now());
    let updated = row.update(&st.core.db).await?;
    st.sessions
        .changed(crate::core::session::Change::AccountChanged {
            account: current.id,
        })
        .await;
    Ok(updated)
}

/// Stores the poster's device token, replacing the one they had.
pub async fn set_device_token(
    st: &AdvertisingState,
    poster_id: Uuid,
    token: String,
    platform: &str,
    now: DateTime<Utc>,
) -> Result<device_token::Model> {
    let row = device_token::ActiveModel {
        poster_id: Set(poster_id),
        token: Set(token),
        platform: Set(platform.to_owned()),
        updated_at: Set(now),
    };
    device_token::Entity::insert(row.clone())
        .on_conflict(
            OnConflict::column(device_token::Column::PosterId)
                .update_columns([
                    device_token::Column::Token,
                    device_token::Column::Platform,
                    device_token::Column::UpdatedAt,
                ])
                .to_owned(),
        )
        .exec(&st.core.db)
        .await?;
    Ok(device_token::Model {
        poster_id,
        token: row.token.unwrap(),
        platform: platform.to_owned(),
        updated_at: now,
    })
}

/// Removes the poster's device token; whether there was one.
pub async fn delete_device_token(st: &AdvertisingState, poster_id: Uuid) -> Result<bool> {
    let gone = device_token::Entity::delete_by_id(poster_id)
        .exec(&st.core.db)
        .await?;
    Ok(gone.rows_affected > 0)
}
