//! The nodes that run (`core::node`): one row per node id, held by the process that runs
//! under it now (its `incarnation`) and kept fresh by that process's heartbeat, so that two
//! live processes never act under one id.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

const NODES: &str = "core_nodes";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(NODES)
                .if_not_exists()
                .col(string("id").primary_key())
                // Empty once the process stopped cleanly: the next one takes the id at once.
                .col(string("incarnation"))
                .col(timestamp_with_time_zone("started_at"))
                .col(timestamp_with_time_zone("heartbeat_at"))
                // Heartbeats since it was taken: a starting process sees a live holder by it.
                .col(big_integer("beats").default(0))
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(NODES).if_exists().to_owned())
            .await
    }
}
