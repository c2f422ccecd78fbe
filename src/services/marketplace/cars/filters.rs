//! The filters and sort orders of the car lists (`GET /cars`, `GET /cars/facets`,
//! `POST /cars/advanced-search`), parsed once and applied to a query. Without a status filter a
//! list holds active listings only: sold and reserved cars are not for sale.

use crate::providers::car_ai::{query, Interpretation};
use crate::services::marketplace::cars::domain::{
    self as listing, CarStatus, BODY_TYPE, CONDITION, FUEL_TYPE, SELLER_TYPE, STATUS, TRANSMISSION,
};
use crate::services::marketplace::domain;
use crate::services::marketplace::error::MarketplaceError;
use crate::services::marketplace::wire::Scalar;
use sea_orm::sea_query::{Condition, Expr, ExprTrait, Func, Order};
use sea_orm::{ColumnTrait, DbBackend, IdenStatic, QueryFilter, QueryOrder, Select};
use serde::Deserialize;
use switchboard_entities::marketplace::car;
use utoipa::{IntoParams, ToSchema};

/// The filters as sent: in the query string of `GET /cars`, or as the `filters` object of the
/// advanced search (where numbers may be JSON numbers).
#[derive(Debug, Default, Clone, Deserialize, IntoParams, ToSchema)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct RawFilters {
    /// Exact make (case-insensitive).
    pub make: Option<String>,
    /// Exact model (case-insensitive).
    pub model: Option<String>,
    #[param(value_type = Option<f64>)]
    #[schema(value_type = Option<f64>)]
    pub min_price: Option<Scalar>,
    #[param(value_type = Option<f64>)]
    #[schema(value_type = Option<f64>)]
    pub max_price: Option<Scalar>,
    #[param(value_type = Option<i32>)]
    #[schema(value_type = Option<i32>)]
    pub min_year: Option<Scalar>,
    #[param(value_type = Option<i32>)]
    #[schema(value_type = Option<i32>)]
    pub max_year: Option<Scalar>,
    /// Petrol, Diesel, Electric or Hybrid.
    pub fuel_type: Option<String>,
    /// Manual or Automatic.
    pub transmission: Option<String>,
    pub body_type: Option<String>,
    /// New, Used or Certified Pre-Owned.
    pub condition: Option<String>,
    #[param(value_type = Option<i64>)]
    #[schema(value_type = Option<i64>)]
    pub max_mileage: Option<Scalar>,
    /// dealer or private.
    pub seller_type: Option<String>,
    /// active (default), sold or reserved.
    pub status: Option<String>,
}

/// Filters `marketplace_car_range_counts` can count: the status, the fuel type and the bounds.
pub struct KeptRanges {
    pub status: CarStatus,
    pub fuel_type: Option<&'static str>,
    pub min_year: Option<i32>,
    pub max_year: Option<i32>,
    pub min_price: Option<f64>,
    pub max_price: Option<f64>,
    pub max_mileage: Option<i64>,
}

/// Checked filters.
#[derive(Debug, Clone)]
pub struct CarFilters {
    make: Option<String>,
    model: Option<String>,
    min_price: Option<f64>,
    max_price: Option<f64>,
    min_year: Option<i32>,
    max_year: Option<i32>,
    fuel_type: Option<&'static str>,
    transmission: Option<&'static str>,
    body_type: Option<&'static str>,
    condition: Option<&'static str>,
    max_mileage: Option<i64>,
    seller_type: Option<&'static str>,
    status: CarStatus,
    /// A colour word of the listing's colour text (the advanced search reads it from words).
    color: Option<&'static str>,
}

fn key(field: &'static str, raw: &Option<String>) -> Result<Option<String>, MarketplaceError> {
    raw.as_deref()
        .map(|v| domain::text(field, v, 80).map(|t| t.to_lowercase()))
        .transpose()
}

impl CarFilters {
    pub fn parse(raw: &RawFilters) -> Result<Self, MarketplaceError> {
        let year = |field: &'static str, v: &Scalar| {
            let y = v.integer(field)?;
            i32::try_from(y).map_err(|_| {
                MarketplaceError::invalid(field, &y.to_string(), format!("{field} is out of range"))
            })
        };
        let choice =
            |c: &listing::Choice, v: &Option<String>| v.as_deref().map(|v| c.parse(v)).transpose();
        let f = Self {
            make: key("make", &raw.make)?,
            model: key("model", &raw.model)?,
            min_price: raw
                .min_price
                .as_ref()
                .map(|v| listing::price("minPrice", v))
                .transpose()?,
            max_price: raw
                .max_price
                .as_ref()
                .map(|v| listing::price("maxPrice", v))
                .transpose()?,
            min_year: raw
                .min_year
                .as_ref()
                .map(|v| year("minYear", v))
                .transpose()?,
            max_year: raw
                .max_year
                .as_ref()
                .map(|v| year("maxYear", v))
                .transpose()?,
            fuel_type: choice(&FUEL_TYPE, &raw.fuel_type)?,
            transmission: choice(&TRANSMISSION, &raw.transmission)?,
            body_type: choice(&BODY_TYPE, &raw.body_type)?,
            condition: choice(&CONDITION, &raw.condition)?,
            max_mileage: raw
                .max_mileage
                .as_ref()
                .map(|v| v.integer("maxMileage"))
                .transpose()?,
            seller_type: choice(&SELLER_TYPE, &raw.seller_type)?,
            status: raw
                .status
                .as_deref()
                .map(|v| STATUS.state(v))
                .transpose()?
                .unwrap_or(CarStatus::DEFAULT),
            color: None,
        };
        if let (Some(lo), Some(hi)) = (f.min_price, f.max_price) {
            if lo > hi {
                return Err(MarketplaceError::invalid(
                    "minPrice",
                    &lo.to_string(),
                    "minPrice must not exceed maxPrice",
                ));
            }
        }
        if let (Some(lo), Some(hi)) = (f.min_year, f.max_year) {
            if lo > hi {
                return Err(MarketplaceError::invalid(
                    "minYear",
                    &lo.to_string(),
                    "minYear must not exceed maxYear",
                ));
            }
        }
        Ok(f)
    }

    /// These filters with each one `read` (free text read as filters) names and these lack:
    /// what a caller set wins. `None` when the two together ask for nothing (a bound past
    /// the other).
    pub fn and_read(&self, read: &Interpretation) -> Option<Self> {
        let choice =
            |c: &listing::Choice, v: &Option<String>| v.as_deref().and_then(|v| c.parse(v).ok());
        let f = Self {
            make: self.make.clone(),
            model: self.model.clone(),
            min_price: self.min_price.or(read.min_price),
            max_price: self.max_price.or(read.max_price),
            min_year: self.min_year.or(read.min_year),
            max_year: self.max_year.or(read.max_year),
            fuel_type: self.fuel_type.or(choice(&FUEL_TYPE, &read.fuel_type)),
            transmission: self
                .transmission
                .or(choice(&TRANSMISSION, &read.transmission)),
            body_type: self.body_type.or(choice(&BODY_TYPE, &read.body_type)),
            condition: self.condition.or(choice(&CONDITION, &read.condition)),
            max_mileage: self.max_mileage.or(read.max_mileage),
            seller_type: self.seller_type,
            status: self.status,
            color: self.color.or(read.color.as_deref().and_then(query::colour)),
        };
        let ordered = |lo: Option<f64>, hi: Option<f64>| lo.zip(hi).is_none_or(|(lo, hi)| lo <= hi);
        (ordered(f.min_price, f.max_price)
            && ordered(f.min_year.map(f64::from), f.max_year.map(f64::from)))
        .then_some(f)
    }

    /// Whether a price, year or mileage bound or a colour is set. Without one, the list is
    /// counted and its facets grouped from `marketplace_car_counts`, which holds every other
    /// filter's column.
    pub fn has_range(&self) -> bool {
        self.color.is_some()
            || self.min_price.is_some()
            || self.max_price.is_some()
            || self.min_year.is_some()
            || self.max_year.is_some()
            || self.max_mileage.is_some()
    }

    /// The bounds and the fuel type, when with the status they are these filters' only ones:
    /// what `marketplace_car_range_counts` keeps (migration `m20261206_000002`).
    pub fn kept_ranges(&self) -> Option<KeptRanges> {
        let other = self.color.is_some()
            || self.make.is_some()
            || self.model.is_some()
            || self.transmission.is_some()
            || self.body_type.is_some()
            || self.condition.is_some()
            || self.seller_type.is_some();
        (!other).then_some(KeptRanges {
            status: self.status,
            fuel_type: self.fuel_type,
            min_year: self.min_year,
            max_year: self.max_year,
            min_price: self.min_price,
            max_price: self.max_price,
            max_mileage: self.max_mileage,
        })
    }

    /// The price bounds, when they are the only range filter (no year, mileage or colour).
    pub fn price_only(&self) -> Option<(Option<f64>, Option<f64>)> {
        let other = self.color.is_some()
            || self.min_year.is_some()
            || self.max_year.is_some()
            || self.max_mileage.is_some();
        (!other && (self.min_price.is_some() || self.max_price.is_some()))
            .then_some((self.min_price, self.max_price))
    }

    /// These filters without their price bounds.
    pub fn without_price(&self) -> Self {
        Self {
            min_price: None,
            max_price: None,
            ..self.clone()
        }
    }

    /// Whether the status is all these filters narrow by (then the list is counted, and its
    /// facets read, from `marketplace_car_facet_counts`).
    pub fn status_only(&self) -> bool {
        !self.has_range() && self.equalities().len() == 1
    }

    /// The status the listings must have.
    pub fn status(&self) -> CarStatus {
        self.status
    }

    /// The equality filters (status always among them).
    fn equalities(&self) -> Vec<(car::Column, &str)> {
        use car::Column as C;
        [
            (C::Status, Some(self.status.as_str())),
            (C::MakeKey, self.make.as_deref()),
            (C::ModelKey, self.model.as_deref()),
            (C::FuelType, self.fuel_type),
            (C::Transmission, self.transmission),
            (C::BodyType, self.body_type),
            (C::Condition, self.condition),
            (C::SellerType, self.seller_type),
        ]
        .into_iter()
        .filter_map(|(c, v)| v.map(|v| (c, v)))
        .collect()
    }

    /// The equality filters on unqualified columns, for a table that has the listings' filter
    /// columns under the same names (`marketplace_car_counts`).
    pub fn equality_condition(&self) -> Condition {
        self.equalities()
            .into_iter()
            .fold(Condition::all(), |c, (col, v)| {
                c.add(Expr::col(col).eq(v.to_owned()))
            })
    }

    /// `select` narrowed to the listings these filters keep, for a page in `sort`'s order.
    /// On SQLite every filter but the status and a range on the order's own column is written
    /// `+column`, which its planner cannot serve from an index: it then walks the order's list
    /// index (which holds every filter column), checks the filters on each entry and stops
    /// after the page. Without statistics it would rather take a filter's own index, collect
    /// every match (thousands, each read from the table) and sort them. PostgreSQL's planner
    /// weighs both with its statistics, and gets the plain filters.
    pub fn apply_for_page(
        &self,
        select: Select<car::Entity>,
        backend: DbBackend,
        sort: &Sort,
    ) -> Select<car::Entity> {
        use car::Column as C;
        if backend != DbBackend::Sqlite {
            return self.apply(select);
        }
        let order = sort.0.first().map_or(C::CreatedAt, |k| k.column);
        let unindexed =
            |col: C, op: &str| format!("+{}.{} {op} ?", car::Entity.as_str(), col.as_str());
        let mut s = select.filter(C::Status.eq(self.status));
        for (col, v) in self.equalities().into_iter().skip(1) {
            s = s.filter(Expr::cust_with_values(unindexed(col, "="), [v.to_owned()]));
        }
        let ranges: [(C, &str, Option<sea_orm::Value>); 5] = [
            (C::Price, ">=", self.min_price.map(Into::into)),
            (C::Price, "<=", self.max_price.map(Into::into)),
            (C::Year, ">=", self.min_year.map(Into::into)),
            (C::Year, "<=", self.max_year.map(Into::into)),
            (C::Mileage, "<=", self.max_mileage.map(Into::into)),
        ];
        for (col, op, v) in ranges {
            let Some(v) = v else { continue };
            s = if col.as_str() == order.as_str() {
                s.filter(Expr::col((car::Entity, col)).binary(op_of(op), v))
            } else {
                s.filter(Expr::cust_with_values(unindexed(col, op), [v]))
            };
        }
        self.apply_color(s)
    }

    /// `select` narrowed to listings whose colour text has the colour as a word ("Red",
    /// "Dark red", "Gray" for grey): equal, or at the start, end or middle between spaces.
    fn apply_color(&self, select: Select<car::Entity>) -> Select<car::Entity> {
        let Some(colour) = self.color else {
            return select;
        };
        let text = || Expr::expr(Func::lower(Expr::col((car::Entity, car::Column::Color))));
        let any = query::colour_words(colour)
            .into_iter()
            .fold(Condition::any(), |c, w| {
                c.add(text().eq(w))
                    .add(text().like(format!("{w} %")))
                    .add(text().like(format!("% {w}")))
                    .add(text().like(format!("% {w} %")))
            });
        select.filter(any)
    }

    /// `select` narrowed to the listings these filters keep.
    pub fn apply(&self, select: Select<car::Entity>) -> Select<car::Entity> {
        use car::Column as C;
        let mut s = self
            .equalities()
            .into_iter()
            .fold(select, |s, (col, v)| s.filter(col.eq(v)));
        if let Some(v) = self.min_price {
            s = s.filter(C::Price.gte(v));
        }
        if let Some(v) = self.max_price {
            s = s.filter(C::Price.lte(v));
        }
        if let Some(v) = self.min_year {
            s = s.filter(C::Year.gte(v));
        }
        if let Some(v) = self.max_year {
            s = s.filter(C::Year.lte(v));
        }
        if let Some(v) = self.max_mileage {
            s = s.filter(C::Mileage.lte(v));
        }
        self.apply_color(s)
    }
}

fn op_of(op: &str) -> sea_orm::sea_query::BinOper {
    use sea_orm::sea_query::BinOper;
    match op {
        ">=" => BinOper::GreaterThanOrEqual,
        "<=" => BinOper::SmallerThanOrEqual,
        _ => BinOper::Equal,
    }
}

/// A sort key of the lists: `price`, `year`, `mileage` or `createdAt`, ascending or descending.
#[derive(Debug, Clone)]
pub struct SortKey {
    column: car::Column,
    order: Order,
}

/// Up to three keys, e.g. `price:asc,year:desc`; the newest listing breaks ties.
#[derive(Debug, Clone, Default)]
pub struct Sort(Vec<SortKey>);

impl Sort {
    pub fn parse(field: &'static str, raw: Option<&str>) -> Result<Self, MarketplaceError> {
        let Some(raw) = raw.filter(|r| !r.trim().is_empty()) else {
            return Ok(Self::default());
        };
        let bad = |why: &str| MarketplaceError::invalid(field, raw, why.to_owned());
        let keys = raw
            .split(',')
            .map(|part| {
                let (name, dir) = part.trim().split_once(':').unwrap_or((part.trim(), "asc"));
                let column = match name {
                    "price" => car::Column::Price,
                    "year" => car::Column::Year,
                    "mileage" => car::Column::Mileage,
                    "createdAt" => car::Column::CreatedAt,
                    _ => {
                        return Err(bad(
                            "sort by price, year, mileage or createdAt, e.g. price:asc",
                        ))
                    }
                };
                let order = match dir.trim().to_ascii_lowercase().as_str() {
                    "asc" => Order::Asc,
                    "desc" => Order::Desc,
                    _ => return Err(bad("a sort direction is asc or desc")),
                };
                Ok(SortKey { column, order })
            })
            .collect::<Result<Vec<_>, _>>()?;
        if keys.len() > 3 {
            return Err(bad("sort by at most three fields"));
        }
        Ok(Self(keys))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `select` in this order, then by creation time and id (so pages never overlap): newest
    /// first after an ascending key or none, oldest first after a descending one (after
    /// `createdAt`, in its direction). So an order and its reverse are exact mirrors, and the
    /// list index of the first key yields either whole, walked forwards or backwards, with no
    /// sort of the ties (a year holds thousands of listings).
    pub fn apply(&self, select: Select<car::Entity>) -> Select<car::Entity> {
        let ties = match self.0.first() {
            None => Order::Desc,
            Some(k) if matches!(k.column, car::Column::CreatedAt) => k.order.clone(),
            Some(k) if matches!(k.order, Order::Desc) => Order::Asc,
            Some(_) => Order::Desc,
        };
        let keyed = self
            .0
            .iter()
            .fold(select, |s, k| s.order_by(k.column, k.order.clone()));
        // Once sorted by creation time, a second term of it would only cost a sort.
        let keyed = if self
            .0
            .iter()
            .any(|k| matches!(k.column, car::Column::CreatedAt))
        {
            keyed
        } else {
            keyed.order_by(car::Column::CreatedAt, ties.clone())
        };
        keyed.order_by(car::Column::Id, ties)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sea_orm::{ConnectOptions, ConnectionTrait, Database, DbBackend, EntityTrait, QueryTrait};
    use switchboard_migration::{Migrator, MigratorTrait};

    fn text(v: &str) -> Option<String> {
        Some(v.to_owned())
    }

    fn num(v: f64) -> Option<Scalar> {
        Some(Scalar::Number(v))
    }

    /// SQLite's plan for the list `filters` and `sort` select.
    async fn plan(db: &sea_orm::DatabaseConnection, raw: RawFilters, sort: &str) -> String {
        let filters = CarFilters::parse(&raw).expect("filters");
        let sort = Sort::parse("sort", Some(sort)).expect("sort");
        let stmt = sort
            .apply(filters.apply_for_page(car::Entity::find(), DbBackend::Sqlite, &sort))
            .build(DbBackend::Sqlite);
        let explain = sea_orm::Statement::from_sql_and_values(
            DbBackend::Sqlite,
            format!("EXPLAIN QUERY PLAN {}", stmt.sql),
            stmt.values.map(|v| v.0).unwrap_or_default(),
        );
        explained(db, explain).await
    }

    /// The plan SQLite reports for an `EXPLAIN QUERY PLAN` statement, one line.
    async fn explained(db: &sea_orm::DatabaseConnection, explain: sea_orm::Statement) -> String {
        db.query_all_raw(explain)
            .await
            .expect("explain")
            .iter()
            .map(|r| r.try_get::<String>("", "detail").expect("detail"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// SQLite's plan for counting the list `filters` keep (as `PaginatorTrait::count` does).
    async fn count_plan(db: &sea_orm::DatabaseConnection, raw: RawFilters) -> String {
        let filters = CarFilters::parse(&raw).expect("filters");
        let stmt = filters.apply(car::Entity::find()).build(DbBackend::Sqlite);
        let explain = sea_orm::Statement::from_sql_and_values(
            DbBackend::Sqlite,
            format!(
                "EXPLAIN QUERY PLAN SELECT COUNT(*) AS num_items FROM ({}) AS sub_query",
                stmt.sql
            ),
            stmt.values.map(|v| v.0).unwrap_or_default(),
        );
        explained(db, explain).await
    }

    #[tokio::test]
    async fn every_filter_and_sort_is_served_by_an_index() {
        let mut opts = ConnectOptions::new("sqlite::memory:");
        opts.max_connections(1);
        let db = Database::connect(opts).await.expect("connect");
        Migrator::up(&db, None).await.expect("migrate");
        let filters = [
            RawFilters::default(),
            RawFilters {
                make: text("Toyota"),
                ..Default::default()
            },
            RawFilters {
                make: text("Toyota"),
                model: text("Corolla"),
                ..Default::default()
            },
            RawFilters {
                min_price: num(1000.0),
                max_price: num(5000.0),
                ..Default::default()
            },
            RawFilters {
                min_year: num(2010.0),
                max_year: num(2020.0),
                ..Default::default()
            },
            RawFilters {
                fuel_type: text("Petrol"),
                ..Default::default()
            },
            RawFilters {
                transmission: text("Manual"),
                ..Default::default()
            },
            RawFilters {
                body_type: text("SUV"),
                ..Default::default()
            },
            RawFilters {
                condition: text("Used"),
                ..Default::default()
            },
            RawFilters {
                max_mileage: num(5000.0),
                ..Default::default()
            },
            RawFilters {
                seller_type: text("dealer"),
                ..Default::default()
            },
            RawFilters {
                status: text(CarStatus::Sold.as_str()),
                ..Default::default()
            },
            RawFilters {
                body_type: text("SUV"),
                transmission: text("Manual"),
                max_price: num(30000.0),
                ..Default::default()
            },
            RawFilters {
                min_year: num(2020.0),
                fuel_type: text("Electric"),
                max_mileage: num(50000.0),
                ..Default::default()
            },
        ];
        // Every filter with every order is read off the order's list index, which yields the
        // page in order (at most ties of the sort key are sorted after) and holds every
        // filter's column, so no match set is sorted and no listing read but the page's.
        for raw in filters {
            for sort in [
                "",
                "price:asc",
                "price:desc",
                "year:desc",
                "mileage:asc",
                "createdAt:asc",
            ] {
                let p = plan(&db, raw.clone(), sort).await;
                assert!(
                    p.contains("INDEX idx_marketplace_cars_list_")
                        || p.contains("INDEX idx_marketplace_cars_status_created"),
                    "{raw:?} {sort}: {p}"
                );
                // One key: the index yields the whole order, ties included.
                assert!(!p.contains("TEMP B-TREE"), "{raw:?} {sort}: {p}");
            }
        }
        // Every range filter is counted off one index, without reading a listing.
        let ranges = RawFilters {
            min_price: num(10000.0),
            max_price: num(20000.0),
            min_year: num(2015.0),
            max_mileage: num(100000.0),
            ..Default::default()
        };
        let p = count_plan(&db, ranges).await;
        assert!(
            p.contains("COVERING INDEX idx_marketplace_cars_list_"),
            "{p}"
        );
    }
}
