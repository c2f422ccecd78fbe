//! Two indexes leading with the fuel type and body after the status, on PostgreSQL only
//! (issue 33; each measured at 100,000 listings, docs/benchmarks.md).
//!
//! - `marketplace_car_counts` (status, fuel, body, the other equality filters, listings): a
//!   list filtered by fuel and body but no make (`bodyType=SUV&fuelType=Diesel`) is counted
//!   from the kept rows, and the sums index leads with the make and model after the status, so
//!   PostgreSQL read every kept row of the status (12,600) to sum the 540 of one fuel and
//!   body: 3.4 ms, now an index-only read of those rows, 0.15 ms.
//! - `marketplace_cars` (status, fuel, body, gearbox, price, year): the advanced search's
//!   reader turns "red diesel suv under 30000" and "automatic petrol hatchback from 2018 under
//!   15000" into these filters. The first is ANDed with the text match ("toyta": 18,700
//!   matches) off the SUVs' index, 2,547 listings read for 51; off this one, 279. The second
//!   (a car list) is counted over the price index's 16,000 entries under 15,000 (2.5 ms), off
//!   this one 124 entries (0.2 ms).
//!
//! Not on SQLite: without statistics its planner would take the counts' index for the facets'
//! reads too, which read every kept row of a status, and it walks the list indexes by design
//! (`CarFilters::apply_for_page`).

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// (name, table, columns).
const INDEXES: [(&str, &str, &str); 2] = [
    (
        "idx_marketplace_car_counts_fuel_body",
        "marketplace_car_counts",
        "status, fuel_type, body_type, transmission, condition, seller_type, listings",
    ),
    (
        "idx_marketplace_cars_fuel_body",
        "marketplace_cars",
        "status, fuel_type, body_type, transmission, price, year",
    ),
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        let db = m.get_connection();
        if db.get_database_backend() != DbBackend::Postgres {
            return Ok(());
        }
        for (name, table, columns) in INDEXES {
            db.execute_unprepared(&format!(
                "CREATE INDEX IF NOT EXISTS {name} ON {table} ({columns})"
            ))
            .await?;
        }
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        let db = m.get_connection();
        if db.get_database_backend() != DbBackend::Postgres {
            return Ok(());
        }
        for (name, _, _) in INDEXES {
            db.execute_unprepared(&format!("DROP INDEX IF EXISTS {name}"))
                .await?;
        }
        Ok(())
    }
}
