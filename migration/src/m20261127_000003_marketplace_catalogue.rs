use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

use crate::schema_helpers::cascade_to;

#[derive(DeriveMigrationName)]
pub struct Migration;

const MAKES: &str = "marketplace_catalogue_makes";
const MODELS: &str = "marketplace_catalogue_models";
const BODY_TYPES: &str = "marketplace_catalogue_body_types";
const FEATURES: &str = "marketplace_catalogue_features";

/// The car catalogue: makes, their models, body types and features. Rows are filled by the
/// marketplace at start from its catalogue module and grow with what is listed; `name_key`
/// (lower case) makes a name unique whatever its case.
#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(MAKES)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(string("name"))
                .col(string_uniq("name_key"))
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(MODELS)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("make_id"))
                .col(string("name"))
                .col(string("name_key"))
                .col(string_null("body_type"))
                .col(string_null("fuel_type"))
                .foreign_key(&mut cascade_to(MODELS, "make_id", MAKES))
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .if_not_exists()
                .name("idx_marketplace_catalogue_models_make")
                .table(MODELS)
                .col("make_id")
                .col("name_key")
                .unique()
                .to_owned(),
        )
        .await?;
        for table in [BODY_TYPES, FEATURES] {
            m.create_table(
                Table::create()
                    .table(table)
                    .if_not_exists()
                    .col(pk_uuid("id"))
                    .col(string_uniq("name"))
                    .to_owned(),
            )
            .await?;
        }
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for table in [FEATURES, BODY_TYPES, MODELS, MAKES] {
            m.drop_table(Table::drop().table(table).if_exists().to_owned())
                .await?;
        }
        Ok(())
    }
}
