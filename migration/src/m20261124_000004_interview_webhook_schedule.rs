//! Interview completion webhooks are scheduled in the database: each row carries the time of
//! its next attempt (on the injected clock), which every node's poller reads and claims with
//! a conditional update, so retries survive restarts and no node keeps the schedule in memory.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::timestamp_with_time_zone_null;

#[derive(DeriveMigrationName)]
pub struct Migration;

const DELIVERIES: &str = "interview_webhook_deliveries";
const INDEX: &str = "idx_interview_deliveries_due";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(
            Table::alter()
                .table(DELIVERIES)
                .add_column(timestamp_with_time_zone_null("next_attempt_at"))
                .to_owned(),
        )
        .await?;
        // Rows already there are due at once (pending) or never again (finished).
        let db = m.get_connection();
        db.execute(
            &Query::update()
                .table(DELIVERIES)
                .value("next_attempt_at", Expr::col("created_at"))
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .if_not_exists()
                .name(INDEX)
                .table(DELIVERIES)
                .col("status")
                .col("next_attempt_at")
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_index(Index::drop().name(INDEX).table(DELIVERIES).to_owned())
            .await?;
        m.alter_table(
            Table::alter()
                .table(DELIVERIES)
                .drop_column("next_attempt_at")
                .to_owned(),
        )
        .await
    }
}
