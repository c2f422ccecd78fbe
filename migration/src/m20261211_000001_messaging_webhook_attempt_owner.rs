//! Who is posting a webhook delivery (issue 33): the node that moved `next_attempt_at` on to
//! its attempt's lease, and when. A process restarted under the same node id takes its own
//! interrupted attempts back at once instead of waiting out their lease.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

use crate::schema_helpers::{add_columns, drop_columns};

#[derive(DeriveMigrationName)]
pub struct Migration;

const DELIVERIES: &str = "messaging_webhook_deliveries";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        let cols = [
            string_null("attempt_owner"),
            timestamp_with_time_zone_null("attempt_started_at"),
        ];
        add_columns(m, DELIVERIES, cols).await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        drop_columns(m, DELIVERIES, &["attempt_started_at", "attempt_owner"]).await
    }
}
