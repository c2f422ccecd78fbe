use crate::schema_helpers::{count_one_more, index, CountTriggers};
use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;
use sea_orm_migration::sea_orm::ConnectionTrait;

#[derive(DeriveMigrationName)]
pub struct Migration;

const CARS: &str = "marketplace_cars";
const COUNTS: &str = "marketplace_car_range_counts";

/// The mileage bands' upper bounds (exclusive); the last band holds every mileage above.
/// `GET /cars` (service/search.rs, `MILEAGE_BANDS`) cuts a mileage bound at the same edges.
const MILEAGE_EDGES: [i64; 7] = [10_000, 25_000, 50_000, 75_000, 100_000, 150_000, 200_000];
/// The price bands of `marketplace_car_counts`.
const PRICE_EDGES: [i64; 6] = [5_000, 10_000, 20_000, 30_000, 50_000, 100_000];

/// `CASE` giving the band of `column` of `row` under `edges`.
fn band(row: &str, column: &str, edges: &[i64]) -> String {
    let whens: String = edges
        .iter()
        .enumerate()
        .map(|(i, e)| format!(" WHEN {row}.{column} < {e} THEN {i}"))
        .collect();
    format!("CASE{whens} ELSE {} END", edges.len())
}

fn values(row: &str) -> String {
    format!(
        "{row}.status, {row}.year, {}, {}, {row}.fuel_type",
        band(row, "price", &PRICE_EDGES),
        band(row, "mileage", &MILEAGE_EDGES)
    )
}

const KEY: &str = "status, year, price_band, mileage_band, fuel_type";

/// `marketplace_car_range_counts`: how many listings have each status, year, price band,
/// mileage band and fuel type, kept by triggers like `marketplace_car_counts`. A car list with
/// year, price or mileage bounds and no equality filter but the fuel type is counted from these
/// rows (a few hundred at most) plus the listings in the parts of a price or mileage range that
/// cut a band, instead of counting every listing in the range (32,000 for `minYear=2020`).
#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(COUNTS)
                .if_not_exists()
                .col(string("status"))
                .col(integer("year"))
                .col(integer("price_band"))
                .col(integer("mileage_band"))
                .col(string("fuel_type"))
                .col(big_integer("listings").default(0))
                .to_owned(),
        )
        .await?;
        let mut key = index(
            COUNTS,
            "key",
            &["status", "year", "price_band", "mileage_band", "fuel_type"],
        );
        m.create_index(key.unique().to_owned()).await?;
        m.create_index(index(
            COUNTS,
            "fuel",
            &[
                "status",
                "fuel_type",
                "year",
                "price_band",
                "mileage_band",
                "listings",
            ],
        ))
        .await?;
        let db = m.get_connection();
        db.execute_unprepared(&format!(
            "INSERT INTO {COUNTS} ({KEY}, listings) SELECT {}, COUNT(*) FROM {CARS} GROUP BY {}",
            values(CARS),
            values(CARS)
        ))
        .await?;
        let add = |row: &str| count_one_more(COUNTS, KEY, "listings", &values(row));
        let remove = |row: &str| {
            format!(
                "UPDATE {COUNTS} SET listings = listings - 1 WHERE status = {row}.status \
                 AND year = {row}.year AND price_band = {} AND mileage_band = {} \
                 AND fuel_type = {row}.fuel_type;",
                band(row, "price", &PRICE_EDGES),
                band(row, "mileage", &MILEAGE_EDGES)
            )
        };
        triggers().create(db, add, remove).await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        triggers().drop(m.get_connection()).await?;
        m.drop_table(Table::drop().table(COUNTS).if_exists().to_owned())
            .await
    }
}

fn triggers() -> CountTriggers<'static> {
    CountTriggers {
        name: COUNTS,
        pg_trigger: COUNTS,
        table: CARS,
        watched: "status, year, price, mileage, fuel_type",
        only_changes: true,
    }
}
