//! A message is claimed before its provider call: an internal status `sending` with the
//! claim's expiry, its attempt count and the node that holds it.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

const MESSAGES: &str = "messaging_messages";
const STALE_INDEX: &str = "idx_messaging_messages_status_sent";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite alters one column at a time.
        for column in [
            timestamp_with_time_zone_null("claim_expires_at"),
            integer("attempts").default(0).to_owned(),
            string_null("claimed_by"),
        ] {
            m.alter_table(Table::alter().table(MESSAGES).add_column(column).to_owned())
                .await?;
        }
        // Reconciliation looks for messages long in `sent`.
        m.create_index(
            Index::create()
                .if_not_exists()
                .name(STALE_INDEX)
                .table(MESSAGES)
                .col("status")
                .col("sent_at")
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_index(Index::drop().name(STALE_INDEX).table(MESSAGES).to_owned())
            .await?;
        for column in ["claimed_by", "attempts", "claim_expires_at"] {
            m.alter_table(
                Table::alter()
                    .table(MESSAGES)
                    .drop_column(column)
                    .to_owned(),
            )
            .await?;
        }
        Ok(())
    }
}
