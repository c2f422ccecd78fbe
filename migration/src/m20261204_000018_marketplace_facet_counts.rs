use crate::schema_helpers::CountTriggers;
use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend};

#[derive(DeriveMigrationName)]
pub struct Migration;

const CARS: &str = "marketplace_cars";
const FACETS: &str = "marketplace_car_facet_counts";

/// Stripes of each row on PostgreSQL: a writer adds to the stripe of its connection, so
/// writers of listings alike do not queue on one row lock until they commit.
const PG_STRIPES: u32 = 8;

/// PostgreSQL fires a row's triggers in the order of their names: this one before
/// `marketplace_car_counts`, whose row lock (shared by every listing alike) is then held for
/// the shortest time, not also while these rows are written.
const PG_TRIGGER: &str = "marketplace_car_by_facet";

fn triggers(watched: &str) -> CountTriggers<'_> {
    CountTriggers {
        name: FACETS,
        pg_trigger: PG_TRIGGER,
        table: CARS,
        watched,
        only_changes: false,
    }
}

/// The price band of a listing row, as `marketplace_car_counts` computes it.
fn band(row: &str) -> String {
    format!(
        "CAST(CASE WHEN {row}.price < 5000 THEN 0 WHEN {row}.price < 10000 THEN 1 \
         WHEN {row}.price < 20000 THEN 2 WHEN {row}.price < 30000 THEN 3 \
         WHEN {row}.price < 50000 THEN 4 WHEN {row}.price < 100000 THEN 5 ELSE 6 END AS TEXT)"
    )
}

/// Each facet as (name, value shown, value grouped by) of a listing row: the make as spelt,
/// grouped by its key (the facets show the first spelling of a make).
fn facets(row: &str) -> [(&'static str, String, String); 6] {
    let col = |c: &str| format!("{row}.{c}");
    [
        ("make", col("make"), col("make_key")),
        ("bodyType", col("body_type"), col("body_type")),
        ("fuelType", col("fuel_type"), col("fuel_type")),
        ("transmission", col("transmission"), col("transmission")),
        ("condition", col("condition"), col("condition")),
        ("band", band(row), band(row)),
    ]
}

/// `marketplace_car_facet_counts`: how many listings of a status have each value of each facet
/// (a few dozen rows, striped on PostgreSQL), kept by triggers like `marketplace_car_counts`.
/// The facets of the whole market and the count of an unfiltered list read these instead of
/// grouping the thousands of combination rows of `marketplace_car_counts`.
#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(FACETS)
                .if_not_exists()
                .col(string("status"))
                .col(string("facet"))
                .col(string("key"))
                .col(string("value"))
                .col(integer("stripe"))
                .col(big_integer("listings").default(0))
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .if_not_exists()
                .name("idx_marketplace_car_facet_counts_key")
                .table(FACETS)
                .unique()
                .col("status")
                .col("facet")
                .col("key")
                .col("value")
                .col("stripe")
                .to_owned(),
        )
        .await?;
        let db = m.get_connection();
        let backend = db.get_database_backend();
        let stripe = match backend {
            DbBackend::Postgres => format!("pg_backend_pid() % {PG_STRIPES}"),
            _ => "0".to_owned(),
        };
        // One statement adding `n` (1 or -1) for each facet of the row, on the writer's stripe.
        let change = |row: &str, n: i32| {
            let rows: Vec<String> = facets(row)
                .into_iter()
                .map(|(facet, value, key)| {
                    format!("({row}.status, '{facet}', {key}, {value}, {stripe}, {n})")
                })
                .collect();
            format!(
                "INSERT INTO {FACETS} (status, facet, key, value, stripe, listings) VALUES {} \
                 ON CONFLICT (status, facet, key, value, stripe) DO UPDATE SET \
                 listings = {FACETS}.listings + excluded.listings;",
                rows.join(", ")
            )
        };
        // The listings already there.
        for (facet, value, key) in facets(CARS) {
            db.execute_unprepared(&format!(
                "INSERT INTO {FACETS} (status, facet, key, value, stripe, listings) \
                 SELECT status, '{facet}', {key}, {value}, 0, COUNT(*) FROM {CARS} \
                 GROUP BY status, {key}, {value}"
            ))
            .await?;
        }
        let watched =
            "status, make, make_key, body_type, fuel_type, transmission, condition, price";
        triggers(watched)
            .create(db, |row| change(row, 1), |row| change(row, -1))
            .await?;
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        triggers("").drop(m.get_connection()).await?;
        m.drop_table(Table::drop().table(FACETS).if_exists().to_owned())
            .await
    }
}
