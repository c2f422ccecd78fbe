//! The interaction counters kept on a car's row, and the one-per-user rows behind them.
//! Counters move only by `UPDATE … SET c = c + n` in the transaction that writes or removes
//! the row that causes the change, so concurrent writers never lose a count.

use crate::services::marketplace::cars::store::find;
use crate::services::marketplace::error::Result;
use chrono::{DateTime, NaiveDate, Utc};
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DeleteMany, EntityTrait, QueryFilter,
    TryInsertResult,
};
use switchboard_entities::marketplace::car;
use uuid::Uuid;

/// A day as stored beside event times (YYYY-MM-DD).
pub fn date_text(d: NaiveDate) -> String {
    d.format("%Y-%m-%d").to_string()
}

/// The UTC day of `t`, as stored.
pub fn day_of(t: DateTime<Utc>) -> String {
    date_text(t.date_naive())
}

/// Adds `by` to the car's `column` and answers the row as it now stands.
pub async fn bump(
    db: &impl ConnectionTrait,
    car_id: Uuid,
    column: car::Column,
    by: i64,
) -> Result<car::Model> {
    if by != 0 {
        car::Entity::update_many()
            .col_expr(column, Expr::col(column).add(by))
            .filter(car::Column::Id.eq(car_id))
            .exec(db)
            .await?;
    }
    find(db, car_id).await
}

/// Inserts `row` unless its key is taken; true when it was inserted.
pub async fn insert_once<A>(db: &impl ConnectionTrait, row: A) -> Result<bool>
where
    A: ActiveModelTrait + Send,
{
    let res = <A::Entity as EntityTrait>::insert(row)
        .on_conflict_do_nothing()
        .exec_without_returning(db)
        .await?;
    Ok(matches!(res, TryInsertResult::Inserted(n) if n > 0))
}

/// Removes the caller's row if there is one, else adds `row`: the change to count, -1, +1
/// or 0 (a concurrent toggle of the same user inserted it first).
pub async fn toggle<A>(
    db: &impl ConnectionTrait,
    existing: DeleteMany<A::Entity>,
    row: A,
) -> Result<i64>
where
    A: ActiveModelTrait + Send,
{
    if existing.exec(db).await?.rows_affected > 0 {
        return Ok(-1);
    }
    Ok(i64::from(insert_once(db, row).await?))
}
