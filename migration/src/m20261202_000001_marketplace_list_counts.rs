use crate::schema_helpers::{count_one_more, CountTriggers};
use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;
use sea_orm_migration::sea_orm::ConnectionTrait;

#[derive(DeriveMigrationName)]
pub struct Migration;

const CARS: &str = "marketplace_cars";
const COUNTS: &str = "marketplace_car_counts";

/// The columns the equality filters and the facets of the car lists read, and the price band
/// (0–6, the facets' bands: under 5,000; 5,000, 10,000, 20,000, 30,000, 50,000 and 100,000 up).
const DIMENSIONS: [&str; 9] = [
    "status",
    "make",
    "make_key",
    "model_key",
    "fuel_type",
    "transmission",
    "body_type",
    "condition",
    "seller_type",
];

/// The price band of a listing row (`row` is `new` or `old` in a trigger, the table in SQL).
fn band(row: &str) -> String {
    format!(
        "CASE WHEN {row}.price < 5000 THEN 0 WHEN {row}.price < 10000 THEN 1 \
         WHEN {row}.price < 20000 THEN 2 WHEN {row}.price < 30000 THEN 3 \
         WHEN {row}.price < 50000 THEN 4 WHEN {row}.price < 100000 THEN 5 ELSE 6 END"
    )
}

/// The list indexes, one per order (`list_created` for the default newest first, one per sort
/// key): status, the order's column, the lists' tie-breakers (newest first, then id), then every
/// other filter's column. An index walk thus yields a page in order whatever the filters, and
/// checks each filter on the index entry, never reading a listing that does not match; a range
/// filter is counted off the index of its column alone.
const LIST_INDEXES: [(&str, &str); 4] = [
    ("list_created", "created_at"),
    ("list_price", "price"),
    ("list_year", "year"),
    ("list_mileage", "mileage"),
];

/// The filter columns the list indexes carry after their order (and `make`, the make's
/// spelling the facets show).
const FILTER_COLUMNS: [&str; 11] = [
    "price",
    "year",
    "mileage",
    "make_key",
    "model_key",
    "fuel_type",
    "transmission",
    "body_type",
    "condition",
    "seller_type",
    "make",
];

/// Replaced by the list indexes (the same leading columns, which also carry the rest).
const DROPPED: [(&str, &[&str]); 3] = [
    ("status_price", &["status", "price"]),
    ("status_year", &["status", "year"]),
    ("status_mileage", &["status", "mileage"]),
];

fn triggers(watched: &str) -> CountTriggers<'_> {
    CountTriggers {
        name: COUNTS,
        pg_trigger: COUNTS,
        table: CARS,
        watched,
        only_changes: false,
    }
}

/// `marketplace_car_counts`: how many listings have each combination of the list's equality
/// filters and price band, kept by triggers on every insert, delete and change of a listing
/// (in the writing transaction, whatever wrote it: the API, a cascade from a deleted account).
/// A list without range filters is counted, and the facets are grouped, from these rows (a few
/// thousand at most for 100,000 listings) instead of from every matching listing. Also the
/// list indexes above.
#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        let mut table = Table::create();
        table.table(COUNTS).if_not_exists();
        for d in DIMENSIONS {
            table.col(string(d));
        }
        table
            .col(integer("price_band"))
            .col(big_integer("listings").default(0));
        m.create_table(table.to_owned()).await?;
        let mut key = Index::create();
        key.if_not_exists()
            .name("idx_marketplace_car_counts_key")
            .table(COUNTS)
            .unique();
        for d in DIMENSIONS {
            key.col(d);
        }
        key.col("price_band");
        m.create_index(key.to_owned()).await?;
        // A list's count sums the rows of its status (and filters) off this index alone.
        let mut sums = Index::create();
        sums.if_not_exists()
            .name("idx_marketplace_car_counts_sums")
            .table(COUNTS)
            .col("status");
        for d in DIMENSIONS
            .iter()
            .filter(|d| !["status", "make"].contains(*d))
        {
            sums.col(*d);
        }
        sums.col("price_band").col("make").col("listings");
        m.create_index(sums.to_owned()).await?;

        for (name, order) in LIST_INDEXES {
            let mut index = Index::create();
            index
                .if_not_exists()
                .name(format!("idx_marketplace_cars_{name}"))
                .table(CARS)
                .col("status");
            if order == "created_at" {
                index.col((Alias::new(order), IndexOrder::Desc));
            } else {
                index
                    .col(order)
                    .col((Alias::new("created_at"), IndexOrder::Desc));
            }
            index.col((Alias::new("id"), IndexOrder::Desc));
            for c in FILTER_COLUMNS.iter().filter(|c| **c != order) {
                index.col(*c);
            }
            m.create_index(index.to_owned()).await?;
        }
        for (name, _) in DROPPED {
            m.drop_index(
                Index::drop()
                    .if_exists()
                    .name(format!("idx_marketplace_cars_{name}"))
                    .table(CARS)
                    .to_owned(),
            )
            .await?;
        }

        let db = m.get_connection();
        let dims = DIMENSIONS.join(", ");
        let key = format!("{dims}, price_band");
        let values = |row: &str| {
            DIMENSIONS
                .iter()
                .map(|d| format!("{row}.{d}"))
                .chain([band(row)])
                .collect::<Vec<_>>()
                .join(", ")
        };
        let matches = |row: &str| {
            DIMENSIONS
                .iter()
                .map(|d| format!("{d} = {row}.{d}"))
                .chain([format!("price_band = {}", band(row))])
                .collect::<Vec<_>>()
                .join(" AND ")
        };
        let add = |row: &str| count_one_more(COUNTS, &key, "listings", &values(row));
        let remove = |row: &str| {
            format!(
                "UPDATE {COUNTS} SET listings = listings - 1 WHERE {};",
                matches(row)
            )
        };
        let watched = format!("{dims}, price");
        // The listings already there.
        db.execute_unprepared(&format!(
            "INSERT INTO {COUNTS} ({key}, listings) SELECT {}, COUNT(*) FROM {CARS} \
             GROUP BY {}",
            values(CARS),
            values(CARS)
        ))
        .await?;
        triggers(&watched).create(db, add, remove).await?;
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        triggers("").drop(m.get_connection()).await?;
        for (name, _) in LIST_INDEXES {
            m.drop_index(
                Index::drop()
                    .if_exists()
                    .name(format!("idx_marketplace_cars_{name}"))
                    .table(CARS)
                    .to_owned(),
            )
            .await?;
        }
        for (name, cols) in DROPPED {
            let mut index = Index::create();
            index
                .if_not_exists()
                .name(format!("idx_marketplace_cars_{name}"))
                .table(CARS);
            for c in cols {
                index.col(*c);
            }
            m.create_index(index.to_owned()).await?;
        }
        m.drop_table(Table::drop().table(COUNTS).if_exists().to_owned())
            .await
    }
}
