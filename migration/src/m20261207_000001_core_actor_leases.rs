//! Which node owns each actor (an interview session, a conversation, a webhook endpoint) in
//! a cluster: one row per actor while it runs, its lease renewed by its node (`core::lease`).

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

const LEASES: &str = "core_actor_leases";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(LEASES)
                .if_not_exists()
                .col(string("kind"))
                .col(uuid("actor_id"))
                .col(string("owner"))
                .col(timestamp_with_time_zone("expires_at"))
                .primary_key(Index::create().col("kind").col("actor_id"))
                .to_owned(),
        )
        .await?;
        // Each node renews all of its leases in one statement.
        m.create_index(
            Index::create()
                .if_not_exists()
                .name("idx_core_actor_leases_owner")
                .table(LEASES)
                .col("owner")
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(LEASES).if_exists().to_owned())
            .await
    }
}
