use crate::schema_helpers::index;
use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

const ADS: &str = "advertising_ads";
const SUBSCRIPTIONS: &str = "advertising_subscriptions";

/// `GET /ads?categoryId=` counts and pages one category of a country: without the category
/// in an index it walked every listed ad of the country (30,000 of 100,000 in the benchmark)
/// to count them. Trending counts each of the last 7 days' subscriptions: without an index
/// on their time each of its 7 counts read every subscription ever made (docs/benchmarks.md,
/// "Advertising (issue 21)").
#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_index(index(
            ADS,
            "listing_category",
            &["listed", "country", "category_id", "created_at"],
        ))
        .await?;
        m.create_index(index(SUBSCRIPTIONS, "created", &["created_at", "ad_id"]))
            .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_index(
            Index::drop()
                .name("idx_advertising_subscriptions_created")
                .table(SUBSCRIPTIONS)
                .to_owned(),
        )
        .await?;
        m.drop_index(
            Index::drop()
                .name("idx_advertising_ads_listing_category")
                .table(ADS)
                .to_owned(),
        )
        .await
    }
}
