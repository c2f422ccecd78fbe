//! The messaging retention job: idempotency keys past their time to live and old webhook
//! delivery attempts. Plain conditional DELETEs, so several nodes may run it at once.

use super::error::Result;
use super::state::MessagingState;
use chrono::Duration;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use switchboard_entities::messaging::{delivery_attempt, idempotency_key};

/// Returns the number of rows removed.
pub async fn purge(st: &MessagingState) -> Result<u64> {
    let db = &st.core.db;
    let now = st.core.now();
    let keys = idempotency_key::Entity::delete_many()
        .filter(
            idempotency_key::Column::CreatedAt
                .lt(now - Duration::hours(std::cmp::max(st.cfg.idempotency_ttl_hours, 0))),
        )
        .exec(db)
        .await?
        .rows_affected;
    // Negative settings would put the cutoff in the future and delete live rows.
    let days = std::cmp::max(st.core.settings.retention.delivery_attempts_days, 0);
    let attempts = delivery_attempt::Entity::delete_many()
        .filter(delivery_attempt::Column::DeliveredAt.lt(now - Duration::days(days)))
        .exec(db)
        .await?
        .rows_affected;
    Ok(keys + attempts)
}
