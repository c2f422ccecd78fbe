//! Ads' rows and their money columns. Every statement that moves an ad's reserved or spent
//! money recomputes `listed` in the same statement (approved and the free budget covers a
//! payout), so what posters are shown never drifts from the money.

use super::super::error::{AdvertisingError, Record, Result};
use super::super::state::AdvertisingState;
use crate::core::page::{Page, Window};
use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Alias, Condition, Expr, ExprTrait, Query};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};
use switchboard_entities::advertising::ad;
pub use switchboard_entities::advertising::ad::{AdStatus, VideoStatus};
use uuid::Uuid;

/// The free budget of a row, as SQL over the row's old values plus `delta` reserved.
fn listed_after(reserved_delta: &str, spent_delta: &str) -> Expr {
    listed_with("+ 0", reserved_delta, spent_delta)
}

/// The row's free budget (funded − reserved − spent) covers `cents`.
fn free_covers(cents: i64) -> Expr {
    Expr::cust(format!(
        "funded_cents - reserved_cents - spent_cents >= {cents}"
    ))
}

/// `listed` over the row's old values plus each delta (funded, reserved, spent).
fn listed_with(funded_delta: &str, reserved_delta: &str, spent_delta: &str) -> Expr {
    Expr::col(ad::Column::Status).eq(AdStatus::Approved).and(Expr::cust(format!(
        "(funded_cents {funded_delta}) - (reserved_cents {reserved_delta}) - (spent_cents {spent_delta}) >= payout_cents"
    )))
}

/// Adds `cents` of paid money to the ad's funded budget (a deposit), listing it when that
/// makes its free budget cover a payout.
pub async fn fund(
    db: &impl ConnectionTrait,
    ad_id: Uuid,
    cents: i64,
    now: DateTime<Utc>,
) -> Result<()> {
    ad::Entity::update_many()
        .col_expr(
            ad::Column::FundedCents,
            Expr::cust(format!("funded_cents + {cents}")),
        )
        .col_expr(
            ad::Column::Listed,
            listed_with(&format!("+ {cents}"), "+ 0", "+ 0"),
        )
        .col_expr(ad::Column::UpdatedAt, Expr::value(now))
        .filter(ad::Column::Id.eq(ad_id))
        .exec(db)
        .await?;
    Ok(())
}

/// Reserves `cents` of the ad's free budget; false when the free budget no longer covers it.
pub async fn reserve(
    db: &impl ConnectionTrait,
    ad_id: Uuid,
    cents: i64,
    now: DateTime<Utc>,
) -> Result<bool> {
    out_of_free(db, ad_id, cents, ad::Column::ReservedCents, now).await
}

/// Moves `cents` of the ad's free budget into `column` (reserved, plus; funded, minus) in
/// one statement guarded by the free budget, recomputing `listed`.
async fn out_of_free(
    db: &impl ConnectionTrait,
    ad_id: Uuid,
    cents: i64,
    column: ad::Column,
    now: DateTime<Utc>,
) -> Result<bool> {
    let (change, listed) = if matches!(column, ad::Column::FundedCents) {
        (
            format!("funded_cents - {cents}"),
            listed_with(&format!("- {cents}"), "+ 0", "+ 0"),
        )
    } else {
        (
            format!("reserved_cents + {cents}"),
            listed_after(&format!("+ {cents}"), "+ 0"),
        )
    };
    let done = ad::Entity::update_many()
        .col_expr(column, Expr::cust(change))
        .col_expr(ad::Column::Listed, listed)
        .col_expr(ad::Column::UpdatedAt, Expr::value(now))
        .filter(ad::Column::Id.eq(ad_id))
        .filter(free_covers(cents))
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
        .filter(ad::Column::Status.ne(AdStatus::Deleted))
        .one(&st.core.db)
        .await?
        .ok_or_else(|| AdvertisingError::NotFound(Record::Ad).into())
}

/// An ad by id, deleted or not, read inside `db` (a transaction).
pub async fn get_in(db: &impl ConnectionTrait, id: Uuid) -> Result<ad::Model> {
    ad::Entity::find_by_id(id)
        .one(db)
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
    let db = &st.core.db;
    let mut select = ad::Entity::find()
        .filter(ad::Column::Listed.eq(true))
        .filter(ad::Column::Country.eq(q.country));
    if let Some(c) = q.category {
        select = select.filter(ad::Column::CategoryId.eq(c));
    }
    let total = listed_count(db, &q).await?;
    let ordered = select
        .order_by_desc(ad::Column::CreatedAt)
        .order_by_desc(ad::Column::Id);
    crate::core::page::fetch_counted(ordered, db, window, total).await
}

/// How many ads `q` lists, from `advertising_ad_counts` (kept by triggers in every
/// transaction that lists or unlists an ad; migration `m20261206_000001`): one row for a
/// category, the country's few summed without.
async fn listed_count(db: &impl ConnectionTrait, q: &Listing<'_>) -> Result<u64> {
    let mut cond = Condition::all().add(Expr::col(Alias::new("country")).eq(q.country));
    if let Some(c) = q.category {
        cond = cond.add(Expr::col(Alias::new("category")).eq(c));
    }
    let stmt = db.get_database_backend().build(
        Query::select()
            .expr_as(
                Expr::cust("CAST(COALESCE(SUM(listed_ads), 0) AS BIGINT)"),
                Alias::new("n"),
            )
            .from(Alias::new("advertising_ad_counts"))
            .cond_where(cond),
    );
    let n = match db.query_one_raw(stmt).await? {
        Some(row) => row.try_get::<i64>("", "n")?,
        None => 0,
    };
    Ok(u64::try_from(n).unwrap_or(0))
}

/// Moves the ad from one of `from` to `to` with `reason`, recomputing `listed` in the same
/// statement (only an approved ad whose free budget covers a payout is shown); false when
/// the ad is not in one of `from`. Reservations are untouched: screenshots already
/// submitted are still decided, paid or released, whatever the ad became.
pub async fn set_status(
    db: &impl ConnectionTrait,
    ad_id: Uuid,
    from: &[AdStatus],
    to: AdStatus,
    reason: Option<String>,
    now: DateTime<Utc>,
) -> Result<bool> {
    let done = status_move(ad_id, from, to, reason, now).exec(db).await?;
    Ok(done.rows_affected == 1)
}

/// Brings back an ad that was paused for `why` (a payment's refund or dispute, a
/// suspension), and only then: a pause of the advertiser's or staff's own stays.
pub async fn resume_paused_for(
    db: &impl ConnectionTrait,
    ad_id: Uuid,
    why: &str,
    now: DateTime<Utc>,
) -> Result<bool> {
    let done = status_move(ad_id, &[AdStatus::Paused], AdStatus::Approved, None, now)
        .filter(ad::Column::StatusReason.eq(why))
        .exec(db)
        .await?;
    Ok(done.rows_affected == 1)
}

fn status_move(
    ad_id: Uuid,
    from: &[AdStatus],
    to: AdStatus,
    reason: Option<String>,
    now: DateTime<Utc>,
) -> sea_orm::UpdateMany<ad::Entity> {
    let listed = if to == AdStatus::Approved {
        Expr::cust("(funded_cents - reserved_cents - spent_cents >= payout_cents)")
    } else {
        Expr::value(false)
    };
    let mut update = ad::Entity::update_many()
        .col_expr(ad::Column::Status, Expr::value(to))
        .col_expr(ad::Column::StatusReason, Expr::value(reason))
        .col_expr(ad::Column::Listed, listed)
        .col_expr(ad::Column::UpdatedAt, Expr::value(now))
        .filter(ad::Column::Id.eq(ad_id))
        .filter(ad::Column::Status.is_in(from.iter().copied()));
    if to == AdStatus::Approved {
        // Only an ad whose video is ready (or an operator's, used as given) reaches posters:
        // each would otherwise get a personalised video that fails, or is made from the
        // unchecked source. Checked in the same statement as the move.
        update = update.filter(
            Condition::any()
                .add(ad::Column::VideoStatus.is_null())
                .add(ad::Column::VideoStatus.eq(VideoStatus::Ready)),
        );
    }
    update
}

/// Takes `cents` out of the ad's free budget (funded − reserved − spent): money a refund
/// or a dispute takes back. False when the free budget no longer covers it (a payout was
/// reserved meanwhile: read again and take less).
pub async fn take_free(
    db: &impl ConnectionTrait,
    ad_id: Uuid,
    cents: i64,
    now: DateTime<Utc>,
) -> Result<bool> {
    out_of_free(db, ad_id, cents, ad::Column::FundedCents, now).await
}
