//! The filters and sort orders of the car lists (`GET /cars`, `GET /cars/facets`,
//! `POST /cars/advanced-search`), parsed once and applied to a query. Without a status filter a
//! list holds active listings only: sold and reserved cars are not for sale.

use super::error::MarketplaceError;
use super::listing::{
    self, Scalar, BODY_TYPE, CONDITION, FUEL_TYPE, SELLER_TYPE, STATUS, TRANSMISSION,
};
use sea_orm::sea_query::Order;
use sea_orm::{ColumnTrait, QueryFilter, QueryOrder, Select};
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
    status: &'static str,
}

fn key(field: &'static str, raw: &Option<String>) -> Result<Option<String>, MarketplaceError> {
    raw.as_deref()
        .map(|v| super::domain::text(field, v, 80).map(|t| t.to_lowercase()))
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
            status: choice(&STATUS, &raw.status)?.unwrap_or("active"),
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

    /// `select` narrowed to the listings these filters keep.
    pub fn apply(&self, select: Select<car::Entity>) -> Select<car::Entity> {
        use car::Column as C;
        let mut s = select.filter(C::Status.eq(self.status));
        if let Some(v) = &self.make {
            s = s.filter(C::MakeKey.eq(v.as_str()));
        }
        if let Some(v) = &self.model {
            s = s.filter(C::ModelKey.eq(v.as_str()));
        }
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
        for (col, v) in [
            (C::FuelType, self.fuel_type),
            (C::Transmission, self.transmission),
            (C::BodyType, self.body_type),
            (C::Condition, self.condition),
            (C::SellerType, self.seller_type),
        ] {
            if let Some(v) = v {
                s = s.filter(col.eq(v));
            }
        }
        s
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

    /// `select` in this order, then newest first, then by id (so pages never overlap).
    pub fn apply(&self, select: Select<car::Entity>) -> Select<car::Entity> {
        self.0
            .iter()
            .fold(select, |s, k| s.order_by(k.column, k.order.clone()))
            .order_by(car::Column::CreatedAt, Order::Desc)
            .order_by(car::Column::Id, Order::Desc)
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
            .apply(filters.apply(car::Entity::find()))
            .build(DbBackend::Sqlite);
        let explain = sea_orm::Statement::from_sql_and_values(
            DbBackend::Sqlite,
            format!("EXPLAIN QUERY PLAN {}", stmt.sql),
            stmt.values.map(|v| v.0).unwrap_or_default(),
        );
        db.query_all_raw(explain)
            .await
            .expect("explain")
            .iter()
            .map(|r| r.try_get::<String>("", "detail").expect("detail"))
            .collect::<Vec<_>>()
            .join("; ")
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
                status: text("sold"),
                ..Default::default()
            },
        ];
        for raw in filters {
            let p = plan(&db, raw.clone(), "").await;
            assert!(p.contains("USING INDEX"), "{raw:?}: {p}");
            // An equality filter's index also yields the newest first; a range filter's
            // matches are sorted after (one index cannot order by two columns' ranges).
            let range =
                raw.min_price.is_some() || raw.min_year.is_some() || raw.max_mileage.is_some();
            assert!(
                range || !p.contains("TEMP B-TREE FOR ORDER BY"),
                "{raw:?}: {p}"
            );
        }
        // Each sort key is read off an index (ties may be sorted after).
        for sort in [
            "price:asc",
            "price:desc",
            "year:desc",
            "mileage:asc",
            "createdAt:asc",
        ] {
            let p = plan(&db, RawFilters::default(), sort).await;
            assert!(p.contains("USING INDEX"), "{sort}: {p}");
            assert!(!p.contains("USE TEMP B-TREE FOR ORDER BY"), "{sort}: {p}");
        }
    }
}
