//! Inbound carrier messages are unique per carrier message id, and interview webhook
//! deliveries keep the key that signs them at each attempt (the timestamped signature).

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

const MESSAGES: &str = "messaging_messages";
const INBOUND_UNIQUE: &str = "uq_messaging_messages_inbound_provider_id";
const INTERVIEW_DELIVERIES: &str = "interview_webhook_deliveries";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        // Partial: outbound ids come from many providers and are not ours to constrain;
        // NULL ids (callbacks without one) stay distinct on both backends.
        m.create_index(
            Index::create()
                .if_not_exists()
                .name(INBOUND_UNIQUE)
                .table(MESSAGES)
                .col("provider_message_id")
                .unique()
                .and_where(Expr::col("direction").eq("inbound"))
                .to_owned(),
        )
        .await?;
        m.alter_table(
            Table::alter()
                .table(INTERVIEW_DELIVERIES)
                .add_column(string_null("secret"))
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(
            Table::alter()
                .table(INTERVIEW_DELIVERIES)
                .drop_column("secret")
                .to_owned(),
        )
        .await?;
        m.drop_index(
            Index::drop()
                .name(INBOUND_UNIQUE)
                .table(MESSAGES)
                .to_owned(),
        )
        .await
    }
}
