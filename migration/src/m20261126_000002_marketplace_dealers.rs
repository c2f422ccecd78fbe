use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

use crate::schema_helpers::cascade_to;

#[derive(DeriveMigrationName)]
pub struct Migration;

const APPLICATIONS: &str = "marketplace_dealer_applications";

/// Dealer applications: a user applies, an administrator approves (the user becomes a
/// dealer). Listed by status for the pending list, by user for the status endpoint.
#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(APPLICATIONS)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("user_id"))
                .col(string("business_name"))
                .col(string("location"))
                .col(string_null("business_phone"))
                .col(text_null("website"))
                .col(text_null("description"))
                .col(string("status"))
                .col(timestamp_with_time_zone("submitted_at"))
                .col(timestamp_with_time_zone_null("reviewed_at"))
                .foreign_key(&mut cascade_to(
                    APPLICATIONS,
                    "user_id",
                    "marketplace_users",
                ))
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .if_not_exists()
                .name("idx_marketplace_dealer_applications_user")
                .table(APPLICATIONS)
                .col("user_id")
                .col("submitted_at")
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .if_not_exists()
                .name("idx_marketplace_dealer_applications_status")
                .table(APPLICATIONS)
                .col("status")
                .col("submitted_at")
                .to_owned(),
        )
        .await?;
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(APPLICATIONS).if_exists().to_owned())
            .await
    }
}
