//! A dealer's listings as a whole: the statistics of their dashboard and the export, read
//! page by page so an export of any size holds one page in memory.

use crate::services::marketplace::error::Result;
use crate::services::marketplace::state::MarketplaceState;
use chrono::{DateTime, Datelike, TimeZone, Utc};
use futures_util::Stream;
use sea_orm::sea_query::{Condition, Expr};
use sea_orm::{
    ColumnTrait, DatabaseConnection, DbErr, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
};
use serde::Serialize;
use switchboard_entities::marketplace::car;
use utoipa::ToSchema;
use uuid::Uuid;

/// The spec's dealer statistics.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DealerStats {
    pub total_cars: i64,
    pub total_views: i64,
    pub total_inquiries: i64,
    /// Listings marked sold this calendar month (UTC).
    pub sales_this_month: i64,
    /// Sum of their prices.
    pub revenue_this_month: f64,
}

/// The first instant of this calendar month and of the next (UTC).
fn month_of(now: DateTime<Utc>) -> (DateTime<Utc>, DateTime<Utc>) {
    let start = |y: i32, m: u32| {
        Utc.with_ymd_and_hms(y, m, 1, 0, 0, 0)
            .single()
            .unwrap_or(now)
    };
    let (y, m) = (now.year(), now.month());
    let next = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
    (start(y, m), start(next.0, next.1))
}

pub async fn stats(st: &MarketplaceState, dealer: Uuid) -> Result<DealerStats> {
    let db = &st.core.db;
    // SUM is numeric on PostgreSQL; the casts give both databases one type to read.
    let (total_cars, total_views, total_inquiries): (i64, i64, i64) = car::Entity::find()
        .select_only()
        .column_as(Expr::cust("COUNT(*)"), "n")
        .column_as(
            Expr::cust("CAST(COALESCE(SUM(view_count), 0) AS BIGINT)"),
            "views",
        )
        .column_as(
            Expr::cust("CAST(COALESCE(SUM(inquiry_count), 0) AS BIGINT)"),
            "inquiries",
        )
        .filter(car::Column::SellerId.eq(dealer))
        .into_tuple()
        .one(db)
        .await?
        .unwrap_or_default();
    let (from, until) = month_of(st.core.now());
    let (sales, revenue): (i64, f64) = car::Entity::find()
        .select_only()
        .column_as(Expr::cust("COUNT(*)"), "n")
        .column_as(
            Expr::cust("CAST(COALESCE(SUM(price), 0) AS DOUBLE PRECISION)"),
            "revenue",
        )
        .filter(car::Column::SellerId.eq(dealer))
        .filter(car::Column::Status.eq(car::CarStatus::Sold))
        .filter(car::Column::SoldAt.gte(from))
        .filter(car::Column::SoldAt.lt(until))
        .into_tuple()
        .one(db)
        .await?
        .unwrap_or_default();
    Ok(DealerStats {
        total_cars,
        total_views,
        total_inquiries,
        sales_this_month: sales,
        revenue_this_month: (revenue * 100.0).round() / 100.0,
    })
}

/// Which of a dealer's listings an export holds: created in `[from, until)`, of `status`.
#[derive(Debug, Clone, Copy)]
pub struct ExportFilter {
    pub dealer: Uuid,
    pub from: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
    pub status: Option<car::CarStatus>,
}

/// Rows fetched per query of an export.
const EXPORT_PAGE: u64 = 200;

/// The listings of `filter`, oldest first, one page per item. Pages follow the last row's
/// (created_at, id), so a listing created or removed meanwhile neither repeats nor shifts
/// another out.
pub fn export_pages(
    db: DatabaseConnection,
    filter: ExportFilter,
) -> impl Stream<Item = Result<Vec<car::Model>, DbErr>> {
    type Cursor = Option<(DateTime<Utc>, Uuid)>;
    futures_util::stream::try_unfold(Some(Cursor::None), move |state| {
        let db = db.clone();
        async move {
            let Some(after) = state else {
                return Ok(None);
            };
            let page = page_after(&db, filter, after).await?;
            let next = page
                .last()
                .filter(|_| page.len() as u64 == EXPORT_PAGE)
                .map(|last| Some((last.created_at, last.id)));
            Ok((!page.is_empty()).then_some((page, next)))
        }
    })
}

async fn page_after(
    db: &DatabaseConnection,
    filter: ExportFilter,
    after: Option<(DateTime<Utc>, Uuid)>,
) -> Result<Vec<car::Model>, DbErr> {
    use car::Column as C;
    let mut select = car::Entity::find().filter(C::SellerId.eq(filter.dealer));
    if let Some(from) = filter.from {
        select = select.filter(C::CreatedAt.gte(from));
    }
    if let Some(until) = filter.until {
        select = select.filter(C::CreatedAt.lt(until));
    }
    if let Some(status) = filter.status {
        select = select.filter(C::Status.eq(status));
    }
    if let Some((at, id)) = after {
        select = select.filter(
            Condition::any()
                .add(C::CreatedAt.gt(at))
                .add(Condition::all().add(C::CreatedAt.eq(at)).add(C::Id.gt(id))),
        );
    }
    select
        .order_by_asc(C::CreatedAt)
        .order_by_asc(C::Id)
        .limit(EXPORT_PAGE)
        .all(db)
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_month_runs_from_its_first_to_the_next_ones() {
        let at = |s: &str| s.parse::<DateTime<Utc>>().unwrap();
        assert_eq!(
            month_of(at("2026-12-31T23:59:59Z")),
            (at("2026-12-01T00:00:00Z"), at("2027-01-01T00:00:00Z"))
        );
        assert_eq!(
            month_of(at("2026-02-01T00:00:00Z")),
            (at("2026-02-01T00:00:00Z"), at("2026-03-01T00:00:00Z"))
        );
    }
}
