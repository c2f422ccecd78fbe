//! A dealer's choice to publish their login phone (issue 19): off unless they opt in, so
//! `GET /dealers` shows the business phone and no one's sign-in number by default.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

const PROFILES: &str = "marketplace_dealer_profiles";
const COLUMN: &str = "publish_login_phone";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(
            Table::alter()
                .table(Alias::new(PROFILES))
                .add_column(boolean(COLUMN).default(false))
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(
            Table::alter()
                .table(Alias::new(PROFILES))
                .drop_column(Alias::new(COLUMN))
                .to_owned(),
        )
        .await
    }
}
