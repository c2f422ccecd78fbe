use crate::schema_helpers::{index, CountTriggers};
use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;
use sea_orm_migration::sea_orm::ConnectionTrait;

#[derive(DeriveMigrationName)]
pub struct Migration;

const ADS: &str = "advertising_ads";
const COUNTS: &str = "advertising_ad_counts";
const SCREENSHOTS: &str = "advertising_screenshots";
const TRIGGERS: CountTriggers = CountTriggers {
    name: COUNTS,
    pg_trigger: COUNTS,
    table: ADS,
    watched: "listed, country, category_id",
    only_changes: true,
};

/// `advertising_ad_counts`: how many listed ads each country holds per category (`''` for
/// ads without one), kept by triggers on every insert, delete and change of an ad's `listed`,
/// country or category, in the writing transaction whatever wrote it (reservations, decided
/// screenshots, part 2's moderation), so `GET /ads` reads its `total` from one row (a few
/// summed without a category) instead of counting the country's listed ads (30,000 in the
/// benchmark). An update that leaves all three alone (most money moves) does not touch the
/// counts, so reservations on different ads of a country never wait on one count row. Also
/// an index for trending's approved screenshots.
#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(COUNTS)
                .if_not_exists()
                .col(string("country"))
                .col(string("category"))
                .col(big_integer("listed_ads").default(0))
                .primary_key(Index::create().col("country").col("category"))
                .to_owned(),
        )
        .await?;
        let db = m.get_connection();
        let key = |row: &str| format!("{row}.country, COALESCE({row}.category_id, '')");
        // Each statement acts only when `row` is listed.
        let add = |row: &str| {
            format!(
                "INSERT INTO {COUNTS} (country, category, listed_ads) SELECT {}, 1 \
                 WHERE {row}.listed ON CONFLICT (country, category) \
                 DO UPDATE SET listed_ads = {COUNTS}.listed_ads + 1;",
                key(row)
            )
        };
        let remove = |row: &str| {
            format!(
                "UPDATE {COUNTS} SET listed_ads = listed_ads - 1 WHERE {row}.listed \
                 AND country = {row}.country AND category = COALESCE({row}.category_id, '');"
            )
        };
        // The ads already there.
        db.execute_unprepared(&format!(
            "INSERT INTO {COUNTS} (country, category, listed_ads) \
             SELECT {}, COUNT(*) FROM {ADS} WHERE listed GROUP BY {}",
            key(ADS),
            key(ADS)
        ))
        .await?;
        TRIGGERS.create(db, add, remove).await?;
        // Trending reads the last 7 days' approved screenshots' ads off this index alone.
        m.create_index(index(
            SCREENSHOTS,
            "approved_ad",
            &["status", "decided_at", "ad_id"],
        ))
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        TRIGGERS.drop(m.get_connection()).await?;
        m.drop_index(
            Index::drop()
                .name("idx_advertising_screenshots_approved_ad")
                .table(SCREENSHOTS)
                .to_owned(),
        )
        .await?;
        m.drop_table(Table::drop().table(COUNTS).if_exists().to_owned())
            .await
    }
}
