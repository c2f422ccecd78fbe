//! Categories in the database (countries and cities are compiled in: `data.rs`).

use sea_orm::{ConnectionTrait, DbErr, EntityTrait, QueryOrder};
use switchboard_entities::advertising::category;

/// Every category, by name.
pub async fn categories(db: &impl ConnectionTrait) -> Result<Vec<category::Model>, DbErr> {
    category::Entity::find()
        .order_by_asc(category::Column::Name)
        .all(db)
        .await
}

/// The category of a slug, any case.
pub async fn category(
    db: &impl ConnectionTrait,
    id: &str,
) -> Result<Option<category::Model>, DbErr> {
    category::Entity::find_by_id(id.trim().to_ascii_lowercase())
        .one(db)
        .await
}
