use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

const WORKSPACES: &str = "messaging_workspaces";
const MESSAGES: &str = "messaging_messages";
const LEDGER: &str = "messaging_ledger_entries";
const WEBHOOKS: &str = "messaging_webhooks";
const DELIVERIES: &str = "messaging_webhook_deliveries";
const ATTEMPTS: &str = "messaging_delivery_attempts";
const IDEMPOTENCY: &str = "messaging_idempotency_keys";

fn index(
    name: &str,
    table: &'static str,
    cols: &[&'static str],
    unique: bool,
) -> IndexCreateStatement {
    let mut i = Index::create();
    i.if_not_exists().name(name).table(table);
    for c in cols {
        i.col(*c);
    }
    if unique {
        i.unique();
    }
    i.to_owned()
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(WORKSPACES)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(string("name"))
                .col(string_uniq("api_key_hash"))
                .col(string("api_key_prefix"))
                .col(big_integer("credits_balance"))
                .col(big_integer("low_credit_threshold"))
                .col(string("sender_name"))
                .col(string_null("phone_number").unique_key())
                .col(timestamp_with_time_zone("created_at"))
                .col(timestamp_with_time_zone("updated_at"))
                .check(Expr::col("credits_balance").gte(0))
                .to_owned(),
        )
        .await?;

        m.create_table(
            Table::create()
                .table(MESSAGES)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("workspace_id"))
                .col(string("direction"))
                .col(string("channel"))
                .col(string("recipient"))
                .col(string_null("sender"))
                .col(text_null("subject"))
                .col(text_null("text"))
                .col(text_null("html"))
                .col(json_null("metadata"))
                .col(string("status"))
                .col(big_integer("cost"))
                .col(integer("segments"))
                .col(string_null("provider_message_id"))
                .col(string_null("error_code"))
                .col(text_null("error_message"))
                .col(uuid_null("bulk_id"))
                .col(timestamp_with_time_zone("created_at"))
                .col(timestamp_with_time_zone("updated_at"))
                .col(timestamp_with_time_zone_null("sent_at"))
                .col(timestamp_with_time_zone_null("delivered_at"))
                .col(timestamp_with_time_zone_null("failed_at"))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            "idx_messaging_messages_ws_created",
            MESSAGES,
            &["workspace_id", "created_at"],
            false,
        ))
        .await?;
        m.create_index(index(
            "idx_messaging_messages_provider_id",
            MESSAGES,
            &["provider_message_id"],
            false,
        ))
        .await?;
        m.create_index(index(
            "idx_messaging_messages_status",
            MESSAGES,
            &["status"],
            false,
        ))
        .await?;

        m.create_table(
            Table::create()
                .table(LEDGER)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("workspace_id"))
                .col(uuid_null("message_id"))
                .col(big_integer("amount"))
                .col(string("reason"))
                .col(timestamp_with_time_zone("created_at"))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            "idx_messaging_ledger_ws",
            LEDGER,
            &["workspace_id"],
            false,
        ))
        .await?;

        m.create_table(
            Table::create()
                .table(WEBHOOKS)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("workspace_id"))
                .col(text("url"))
                .col(json("events"))
                .col(string("secret_hash"))
                .col(boolean("is_active"))
                .col(integer("failure_count"))
                .col(timestamp_with_time_zone_null("last_triggered_at"))
                .col(timestamp_with_time_zone("created_at"))
                .col(timestamp_with_time_zone("updated_at"))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            "idx_messaging_webhooks_ws",
            WEBHOOKS,
            &["workspace_id"],
            false,
        ))
        .await?;

        m.create_table(
            Table::create()
                .table(DELIVERIES)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("webhook_id"))
                .col(uuid("workspace_id"))
                .col(big_integer("seq"))
                .col(string("event_type"))
                .col(text("payload"))
                .col(string("status"))
                .col(integer("attempts"))
                .col(timestamp_with_time_zone("next_attempt_at"))
                .col(timestamp_with_time_zone("created_at"))
                .col(timestamp_with_time_zone_null("completed_at"))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            "idx_messaging_deliveries_webhook_status",
            DELIVERIES,
            &["webhook_id", "status", "seq"],
            false,
        ))
        .await?;
        m.create_index(index(
            "idx_messaging_deliveries_status",
            DELIVERIES,
            &["status"],
            false,
        ))
        .await?;

        m.create_table(
            Table::create()
                .table(ATTEMPTS)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("delivery_id"))
                .col(uuid("webhook_id"))
                .col(string("event_type"))
                .col(integer("attempt"))
                .col(integer_null("response_status"))
                .col(text_null("response_body"))
                .col(text_null("error"))
                .col(big_integer("duration_ms"))
                .col(timestamp_with_time_zone("delivered_at"))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            "idx_messaging_attempts_webhook",
            ATTEMPTS,
            &["webhook_id", "delivered_at"],
            false,
        ))
        .await?;

        m.create_table(
            Table::create()
                .table(IDEMPOTENCY)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("workspace_id"))
                .col(string("key"))
                .col(string("request_hash"))
                .col(integer("response_status"))
                .col(text("response_body"))
                .col(timestamp_with_time_zone("created_at"))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            "idx_messaging_idempotency_ws_key",
            IDEMPOTENCY,
            &["workspace_id", "key"],
            true,
        ))
        .await?;
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for t in [
            IDEMPOTENCY,
            ATTEMPTS,
            DELIVERIES,
            WEBHOOKS,
            LEDGER,
            MESSAGES,
            WORKSPACES,
        ] {
            m.drop_table(Table::drop().table(t).if_exists().to_owned())
                .await?;
        }
        Ok(())
    }
}
