//! Ads' rows and their money columns. Every statement that moves an ad's reserved or spent
//! money recomputes `listed` in the same statement (approved and the free budget covers a
//! payout), so what posters are shown never drifts from the money.

use super::super::error::{AdvertisingError, Record, Result};
use super::super::AdvertisingState;
use crate::core::page::{Page, Window};
use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};
use switchboard_entities::advertising::ad;
use uuid::Uuid;

/// The free budget of a row, as SQL over the row's old values plus `delta` reserved.
fn listed_after(reserved_delta: &str, spent_delta: &str) -> Expr {
    Expr::cust(format!(
        "(status = 'approved' AND funded_cents - (reserved_cents {reserved_delta}) - (spent_cents {spent_delta}) >= payout_cents)"
    ))
}

/// Reserves `cents` of the ad's free budget; false when the free budget no longer covers it.
pub async fn reserve(
    db: &impl ConnectionTrait,
    ad_id: Uuid,
    cents: i64,
    now: DateTime<Utc>,
) -> Result<bool> {
    let done = ad::Entity::update_many()
        .col_expr(
            ad::Column::ReservedCents,
            Expr::cust(format!("reserved_cents + {cents}")),
        )
        .col_expr(
            ad::Column::Listed,
            listed_after(&format!("+ {cents}"), "+ 0"),
        )
        .col_expr(ad::Column::UpdatedAt, Expr::value(now))
        .filter(ad::Column::Id.eq(ad_id))
        .filter(Expr::cust(format!(
            "funded_cents - reserved_cents - spent_cents >= {cents}"
        )))
        .exec(db)
        .await?;
    Ok(done.rows_affected == 1)
}

/// Ends a reservation of `cents`: spent (an approved screenshot) or given back to the free
/// budget (a rejected one).
pub async fn settle(
    db: &impl ConnectionTrait,
    ad_id: Uuid,
    cents: i64,
    spent: bool,
    now: DateTime<Utc>,
) -> Result<()> {
    let spent_cents = if spent { cents } else { 0 };
    ad::Entity::update_many()
        .col_expr(
            ad::Column::ReservedCents,
            Expr::cust(format!("reserved_cents - {cents}")),
        )
        .col_expr(
            ad::Column::SpentCents,
            Expr::cust(format!("spent_cents + {spent_cents}")),
        )
        .col_expr(
            ad::Column::Listed,
            listed_after(&format!("- {cents}"), &format!("+ {spent_cents}")),
        )
        .col_expr(ad::Column::UpdatedAt, Expr::value(now))
        .filter(ad::Column::Id.eq(ad_id))
        .exec(db)
        .await?;
    Ok(())
}

/// An ad that is not deleted.
pub async fn get(st: &AdvertisingState, id: Uuid) -> Result<ad::Model> {
    ad::Entity::find_by_id(id)
        .filter(ad::Column::Status.ne("deleted"))
        .one(&st.core.db)
        .await?
        .ok_or_else(|| AdvertisingError::NotFound(Record::Ad).into())
}

/// What posters may list: ads shown to them, in `country`, of `category` if given; newest
/// first.
pub struct Listing<'a> {
    pub country: &'a str,
    pub category: Option<&'a str>,
}

pub async fn list(
    st: &AdvertisingState,
    q: Listing<'_>,
    window: Window,
) -> Result<Page<ad::Model>> {
    let mut select = ad::Entity::find()
        .filter(ad::Column::Listed.eq(true))
        .filter(ad::Column::Country.eq(q.country));
    if let Some(c) = q.category {
        select = select.filter(ad::Column::CategoryId.eq(c));
    }
    super::super::wire::newest_first(
        &st.core.db,
        select,
        ad::Column::CreatedAt,
        ad::Column::Id,
        window,
    )
    .await
}

/// The listed ads of `country` among `ids`.
pub async fn listed_among(
    st: &AdvertisingState,
    country: &str,
    ids: Vec<Uuid>,
) -> Result<Vec<ad::Model>> {
    Ok(ad::Entity::find()
        .filter(ad::Column::Id.is_in(ids))
        .filter(ad::Column::Listed.eq(true))
        .filter(ad::Column::Country.eq(country))
        .all(&st.core.db)
        .await?)
}

/// Moves the ad from one of `from` to `to` with `reason`, recomputing `listed` in the same
/// statement (only an approved ad whose free budget covers a payout is shown); false when
/// the ad is not in one of `from`. Reservations are untouched: screenshots already
/// submitted are still decided, paid or released, whatever the ad became.
pub async fn set_status(
    db: &impl ConnectionTrait,
    ad_id: Uuid,
    from: &[&str],
    to: &str,
    reason: Option<String>,
    now: DateTime<Utc>,
) -> Result<bool> {
    let listed = if to == "approved" {
        Expr::cust("(funded_cents - reserved_cents - spent_cents >= payout_cents)")
    } else {
        Expr::value(false)
    };
    let done = ad::Entity::update_many()
        .col_expr(ad::Column::Status, Expr::value(to))
        .col_expr(ad::Column::StatusReason, Expr::value(reason))
        .col_expr(ad::Column::Listed, listed)
        .col_expr(ad::Column::UpdatedAt, Expr::value(now))
        .filter(ad::Column::Id.eq(ad_id))
        .filter(ad::Column::Status.is_in(from.iter().copied()))
        .exec(db)
        .await?;
    Ok(done.rows_affected == 1)
}
