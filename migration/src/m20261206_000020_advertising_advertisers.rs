//! Advertisers' own records (issue 22): single-use email tokens (address verification and
//! password resets, kept as SHA-256 hashes), when a verification mail last went out (at most
//! one a minute), what an advertiser's campaign adds to its ad (the audience asked for and
//! the processed video), and the views posters give an ad (one per poster per day).

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

use crate::schema_helpers::{add_columns, cascade_to, index};

#[derive(DeriveMigrationName)]
pub struct Migration;

const ADVERTISERS: &str = "advertising_advertisers";
const TOKENS: &str = "advertising_advertiser_tokens";
const ADS: &str = "advertising_ads";
const VIEWS: &str = "advertising_ad_views";

/// Columns added to the ads, each nullable: operators' ads have none of them.
fn ad_columns() -> [ColumnDef; 5] {
    [
        // `{"ageMin": …, "ageMax": …, "genders": […]}` as the advertiser gave it.
        text_null("demographics"),
        // `processing`, `ready` or `failed`; None for an operator's ad (used as given).
        string_null("video_status"),
        string_null("video_error"),
        // Storage keys of the transcoded video and its thumbnail.
        string_null("video_key"),
        string_null("thumbnail_key"),
    ]
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(TOKENS)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("advertiser_id"))
                // `verify_email` or `reset_password`.
                .col(string("purpose"))
                .col(string_uniq("token_hash"))
                .col(timestamp_with_time_zone("expires_at"))
                .col(timestamp_with_time_zone_null("used_at"))
                .col(timestamp_with_time_zone("created_at"))
                .foreign_key(&mut cascade_to(TOKENS, "advertiser_id", ADVERTISERS))
                .to_owned(),
        )
        .await?;
        m.create_index(index(TOKENS, "owner", &["advertiser_id", "purpose"]))
            .await?;
        add_columns(
            m,
            ADVERTISERS,
            [timestamp_with_time_zone_null("verification_sent_at")],
        )
        .await?;
        add_columns(m, ADS, ad_columns()).await?;
        m.create_index(index(ADS, "advertiser", &["advertiser_id", "created_at"]))
            .await?;
        m.create_table(
            Table::create()
                .table(VIEWS)
                .if_not_exists()
                .col(uuid("ad_id"))
                .col(uuid("poster_id"))
                // `YYYY-MM-DD` (UTC): one view per poster per day.
                .col(string("day"))
                .primary_key(Index::create().col("ad_id").col("poster_id").col("day"))
                .to_owned(),
        )
        .await?;
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_index(
            Index::drop()
                .if_exists()
                .name(format!("idx_{ADS}_advertiser"))
                .table(Alias::new(ADS))
                .to_owned(),
        )
        .await?;
        for t in [VIEWS, TOKENS] {
            m.drop_table(Table::drop().table(t).if_exists().to_owned())
                .await?;
        }
        for col in [
            "demographics",
            "video_status",
            "video_error",
            "video_key",
            "thumbnail_key",
        ] {
            m.alter_table(
                Table::alter()
                    .table(Alias::new(ADS))
                    .drop_column(Alias::new(col))
                    .to_owned(),
            )
            .await?;
        }
        m.alter_table(
            Table::alter()
                .table(Alias::new(ADVERTISERS))
                .drop_column(Alias::new("verification_sent_at"))
                .to_owned(),
        )
        .await
    }
}
