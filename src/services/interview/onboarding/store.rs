//! Onboarding chats as stored.

use sea_orm::{ConnectionTrait, DbErr, EntityTrait};
use switchboard_entities::interview::onboarding;
use uuid::Uuid;

/// The onboarding chat `id`, if there is one.
pub async fn find(db: &impl ConnectionTrait, id: Uuid) -> Result<Option<onboarding::Model>, DbErr> {
    onboarding::Entity::find_by_id(id).one(db).await
}
