//! Refresh-token rotation for the services that keep refresh tokens (identity, marketplace):
//! a token is spent by one conditional update, so of two refreshes racing with one token
//! exactly one wins; each service decides what losing means (identity counts it as reuse).

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Condition, Expr};
use sea_orm::{ColumnTrait, ConnectionTrait, DbErr, EntityTrait, QueryFilter};
use uuid::Uuid;

/// The two columns rotation reads and writes.
pub struct RotationColumns<C> {
    pub id: C,
    pub rotated_at: C,
}

/// Marks token `id` rotated at `now` when it is not rotated yet and `still` holds for it
/// (e.g. "not revoked"); true when this call did, false when another got there first.
pub async fn rotate_once<E: EntityTrait>(
    db: &impl ConnectionTrait,
    columns: RotationColumns<E::Column>,
    id: Uuid,
    still: Condition,
    now: DateTime<Utc>,
) -> Result<bool, DbErr> {
    let done = E::update_many()
        .col_expr(columns.rotated_at, Expr::value(now))
        .filter(columns.id.eq(id))
        .filter(columns.rotated_at.is_null())
        .filter(still)
        .exec(db)
        .await?;
    Ok(done.rows_affected == 1)
}
