use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

use crate::schema_helpers::cascade_to;

#[derive(DeriveMigrationName)]
pub struct Migration;

const USERS: &str = "marketplace_users";
const PROFILES: &str = "marketplace_dealer_profiles";
const REVIEWS: &str = "marketplace_dealer_reviews";

/// Dealer profiles (one per approved dealer, keyed by the user id, created by the approval)
/// and the customers' reviews of dealers (one per customer and dealer). The rating is kept
/// as a sum and a count, moved together by each review, so the average is exact.
#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(PROFILES)
                .if_not_exists()
                .col(pk_uuid("user_id"))
                .col(string("name"))
                .col(string("location"))
                .col(json_null("business_hours"))
                .col(text_null("website"))
                .col(text_null("description"))
                .col(string_null("business_phone"))
                .col(big_integer("rating_sum"))
                .col(integer("review_count"))
                .col(integer("total_sales"))
                .col(timestamp_with_time_zone("joined_date"))
                .col(timestamp_with_time_zone("updated_at"))
                .foreign_key(&mut cascade_to(PROFILES, "user_id", USERS))
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .if_not_exists()
                .name("idx_marketplace_dealer_profiles_joined")
                .table(PROFILES)
                .col("joined_date")
                .to_owned(),
        )
        .await?;

        m.create_table(
            Table::create()
                .table(REVIEWS)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("dealer_id"))
                .col(uuid("author_id"))
                .col(small_integer("rating"))
                .col(text("comment"))
                .col(timestamp_with_time_zone("created_at"))
                .foreign_key(&mut cascade_to(REVIEWS, "dealer_id", USERS))
                .foreign_key(&mut cascade_to(REVIEWS, "author_id", USERS))
                .to_owned(),
        )
        .await?;
        // One review per customer and dealer; the race between two is lost at this index.
        m.create_index(
            Index::create()
                .if_not_exists()
                .name("idx_marketplace_dealer_reviews_author")
                .table(REVIEWS)
                .col("dealer_id")
                .col("author_id")
                .unique()
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .if_not_exists()
                .name("idx_marketplace_dealer_reviews_newest")
                .table(REVIEWS)
                .col("dealer_id")
                .col("created_at")
                .to_owned(),
        )
        .await?;
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(REVIEWS).if_exists().to_owned())
            .await?;
        m.drop_table(Table::drop().table(PROFILES).if_exists().to_owned())
            .await
    }
}
