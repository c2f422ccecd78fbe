use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

use crate::schema_helpers::{cascade_to, index};

#[derive(DeriveMigrationName)]
pub struct Migration;

const CARS: &str = "marketplace_cars";
const USERS: &str = "marketplace_users";
const LIKES: &str = "marketplace_car_likes";
const VIEWS: &str = "marketplace_car_views";
const COMMENTS: &str = "marketplace_car_comments";
const COMMENT_LIKES: &str = "marketplace_comment_likes";
const SHARES: &str = "marketplace_car_shares";
const TEST_DRIVES: &str = "marketplace_test_drives";
const FAVORITES: &str = "marketplace_favorites";
const INQUIRIES: &str = "marketplace_inquiries";

/// Each index serves one list or lookup: `(table, name, columns)`. The `day` indexes serve
/// trending (the last seven UTC days per car) and analytics (a car's last 30 days).
const INDEXES: [(&str, &str, &[&str]); 14] = [
    (LIKES, "user", &["user_id", "created_at"]),
    (LIKES, "day", &["day", "car_id"]),
    (VIEWS, "car_day", &["car_id", "day"]),
    (VIEWS, "day", &["day", "car_id"]),
    (VIEWS, "user", &["user_id", "car_id", "viewed_at"]),
    (COMMENTS, "car", &["car_id", "parent_id", "created_at"]),
    (COMMENTS, "parent", &["parent_id", "created_at"]),
    (SHARES, "car", &["car_id", "created_at"]),
    (TEST_DRIVES, "car", &["car_id", "created_at"]),
    (FAVORITES, "user", &["user_id", "created_at"]),
    (FAVORITES, "day", &["day", "car_id"]),
    (INQUIRIES, "customer", &["customer_id", "created_at"]),
    (INQUIRIES, "dealer", &["dealer_id", "created_at"]),
    (INQUIRIES, "day", &["day", "car_id"]),
];

/// What customers do with listings. Likes, favorites and comment likes are one per user (the
/// primary key); a view is one per car, viewer and UTC day. Every row that moves a counter
/// of `marketplace_cars` is written in the transaction that moves it. `day` (YYYY-MM-DD,
/// UTC) is stored beside the time so per-day sums group on an indexed column on both
/// databases.
#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(LIKES)
                .if_not_exists()
                .col(uuid("car_id"))
                .col(uuid("user_id"))
                .col(string("day"))
                .col(timestamp_with_time_zone("created_at"))
                .primary_key(Index::create().col("car_id").col("user_id"))
                .foreign_key(&mut cascade_to(LIKES, "car_id", CARS))
                .foreign_key(&mut cascade_to(LIKES, "user_id", USERS))
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(VIEWS)
                .if_not_exists()
                .col(uuid("car_id"))
                // `u:<user id>` signed in, else `a:<keyed hash of the address>`.
                .col(string("viewer"))
                .col(string("day"))
                .col(uuid_null("user_id"))
                // The latest view of that day (the history lists most recent first).
                .col(timestamp_with_time_zone("viewed_at"))
                .primary_key(Index::create().col("car_id").col("viewer").col("day"))
                .foreign_key(&mut cascade_to(VIEWS, "car_id", CARS))
                .foreign_key(&mut cascade_to(VIEWS, "user_id", USERS))
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(COMMENTS)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("car_id"))
                .col(uuid("user_id"))
                .col(uuid_null("parent_id"))
                .col(text("text"))
                .col(integer_null("rating"))
                .col(big_integer("like_count").default(0))
                .col(timestamp_with_time_zone("created_at"))
                .foreign_key(&mut cascade_to(COMMENTS, "car_id", CARS))
                .foreign_key(&mut cascade_to(COMMENTS, "user_id", USERS))
                .foreign_key(&mut cascade_to(COMMENTS, "parent_id", COMMENTS))
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(COMMENT_LIKES)
                .if_not_exists()
                .col(uuid("comment_id"))
                .col(uuid("user_id"))
                .col(timestamp_with_time_zone("created_at"))
                .primary_key(Index::create().col("comment_id").col("user_id"))
                .foreign_key(&mut cascade_to(COMMENT_LIKES, "comment_id", COMMENTS))
                .foreign_key(&mut cascade_to(COMMENT_LIKES, "user_id", USERS))
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(SHARES)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("car_id"))
                .col(uuid_null("user_id"))
                .col(string_null("channel"))
                .col(timestamp_with_time_zone("created_at"))
                .foreign_key(&mut cascade_to(SHARES, "car_id", CARS))
                .foreign_key(&mut cascade_to(SHARES, "user_id", USERS))
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(TEST_DRIVES)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("car_id"))
                .col(uuid("user_id"))
                .col(string("preferred_date"))
                .col(string("preferred_time"))
                .col(text("message"))
                .col(string("status"))
                .col(timestamp_with_time_zone("created_at"))
                .foreign_key(&mut cascade_to(TEST_DRIVES, "car_id", CARS))
                .foreign_key(&mut cascade_to(TEST_DRIVES, "user_id", USERS))
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(FAVORITES)
                .if_not_exists()
                .col(uuid("user_id"))
                .col(uuid("car_id"))
                .col(string("day"))
                .col(timestamp_with_time_zone("created_at"))
                .primary_key(Index::create().col("user_id").col("car_id"))
                .foreign_key(&mut cascade_to(FAVORITES, "car_id", CARS))
                .foreign_key(&mut cascade_to(FAVORITES, "user_id", USERS))
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(INQUIRIES)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("car_id"))
                .col(uuid("dealer_id"))
                .col(uuid("customer_id"))
                .col(text("message"))
                .col(string("contact_method"))
                .col(string("status"))
                .col(string("day"))
                .col(timestamp_with_time_zone("created_at"))
                .foreign_key(&mut cascade_to(INQUIRIES, "car_id", CARS))
                .foreign_key(&mut cascade_to(INQUIRIES, "dealer_id", USERS))
                .foreign_key(&mut cascade_to(INQUIRIES, "customer_id", USERS))
                .to_owned(),
        )
        .await?;
        for (table, name, cols) in INDEXES {
            m.create_index(index(table, name, cols)).await?;
        }
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            INQUIRIES,
            FAVORITES,
            TEST_DRIVES,
            SHARES,
            COMMENT_LIKES,
            COMMENTS,
            VIEWS,
            LIKES,
        ] {
            m.drop_table(Table::drop().table(table).if_exists().to_owned())
                .await?;
        }
        Ok(())
    }
}
