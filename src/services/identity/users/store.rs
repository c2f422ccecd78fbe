//! Accounts in the database: look-ups by phone and handle.

use super::super::error::Result;
use super::domain::Handle;
use crate::core::phone::PhoneNumber;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};
use switchboard_entities::identity::user;
use uuid::Uuid;

/// The live (not deleted) account of a phone number.
pub async fn live_user_by_phone(
    db: &impl ConnectionTrait,
    phone: &PhoneNumber,
) -> Result<Option<user::Model>> {
    Ok(user::Entity::find()
        .filter(user::Column::Phone.eq(phone.as_str()))
        .filter(user::Column::DeletedAt.is_null())
        .one(db)
        .await?)
}

/// Any account of a phone number, including one awaiting hard deletion.
pub async fn any_user_by_phone(
    db: &impl ConnectionTrait,
    phone: &PhoneNumber,
) -> Result<Option<user::Model>> {
    Ok(user::Entity::find()
        .filter(user::Column::Phone.eq(phone.as_str()))
        .one(db)
        .await?)
}

/// Whether some other account (live or awaiting deletion) holds a handle that looks like it.
pub async fn handle_taken(
    db: &impl ConnectionTrait,
    handle: &Handle,
    except: Option<Uuid>,
) -> Result<bool> {
    let mut q = user::Entity::find().filter(user::Column::HandleCanonical.eq(handle.canonical()));
    if let Some(id) = except {
        q = q.filter(user::Column::Id.ne(id));
    }
    Ok(q.one(db).await?.is_some())
}

/// The live account holding `handle`, as written.
pub async fn live_user_by_handle(
    db: &impl ConnectionTrait,
    handle: &Handle,
) -> Result<Option<user::Model>> {
    Ok(user::Entity::find()
        .filter(user::Column::Handle.eq(handle.as_str()))
        .filter(user::Column::DeletedAt.is_null())
        .one(db)
        .await?)
}
