//! Reports as stored: one row per completed session, its report as JSON.

use sea_orm::{ConnectionTrait, DbErr, EntityTrait};
use switchboard_entities::interview::report;
use uuid::Uuid;

/// The stored report of a session, if it has one.
pub async fn find(
    db: &impl ConnectionTrait,
    session_id: Uuid,
) -> Result<Option<report::Model>, DbErr> {
    report::Entity::find_by_id(session_id).one(db).await
}
