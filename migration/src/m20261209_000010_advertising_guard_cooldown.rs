//! The cooldown between a phone's sign-in codes moved from its guard row to the code limits
//! every service shares (`core::code_limits`, counted with the phone's budgets so a refused
//! request spends none of them): `last_sent_at` goes.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

/// The guard rows' table, to alter.
fn guards() -> TableAlterStatement {
    Table::alter()
        .table(Alias::new("advertising_phone_guards"))
        .to_owned()
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(guards().drop_column(Alias::new("last_sent_at")).to_owned())
            .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(
            guards()
                .add_column(timestamp_with_time_zone_null("last_sent_at"))
                .to_owned(),
        )
        .await
    }
}
