use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

use crate::schema_helpers::cascade_to;

#[derive(DeriveMigrationName)]
pub struct Migration;

const SIGHTINGS: &str = "marketplace_catalogue_sightings";

/// Which verified sellers listed a make or model the public catalogue does not hold yet: one
/// row per (make, model, seller), so distinct sellers are counted off the key (a make's over
/// its prefix). A make or model enters the catalogue when enough of them did.
#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(SIGHTINGS)
                .if_not_exists()
                .col(string("make_key"))
                .col(string("model_key"))
                .col(uuid("seller_id"))
                .col(timestamp_with_time_zone("created_at"))
                .primary_key(
                    Index::create()
                        .col("make_key")
                        .col("model_key")
                        .col("seller_id"),
                )
                .foreign_key(&mut cascade_to(SIGHTINGS, "seller_id", "marketplace_users"))
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(SIGHTINGS).if_exists().to_owned())
            .await
    }
}
