//! Webhook deliveries get an ordering key: order is kept per message (or per event type for
//! events without a message), so one refused event no longer holds back the whole endpoint.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, FromQueryResult};

#[derive(DeriveMigrationName)]
pub struct Migration;

const DELIVERIES: &str = "messaging_webhook_deliveries";
const INDEX: &str = "idx_messaging_deliveries_webhook_key";

/// The key the service writes (src/services/messaging/webhooks/events.rs), repeated here so
/// this migration keeps meaning what it meant when it ran.
fn order_key(event_type: &str, payload: &str) -> String {
    let message_id = serde_json::from_str::<serde_json::Value>(payload)
        .ok()
        .and_then(|v| v["data"]["message_id"].as_str().map(str::to_owned));
    match message_id {
        Some(id) => format!("message:{id}"),
        None => format!("event:{event_type}"),
    }
}

#[derive(FromQueryResult)]
struct Row {
    id: uuid::Uuid,
    event_type: String,
    payload: String,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(
            Table::alter()
                .table(DELIVERIES)
                .add_column(ColumnDef::new("order_key").string().not_null().default(""))
                .to_owned(),
        )
        .await?;
        // Only pending rows are ever ordered again; finished ones keep the empty key.
        let db = m.get_connection();
        let select = Query::select()
            .columns(["id", "event_type", "payload"])
            .from(DELIVERIES)
            .and_where(Expr::col("status").eq("pending"))
            .to_owned();
        let rows = Row::find_by_statement(db.get_database_backend().build(&select))
            .all(db)
            .await?;
        for r in rows {
            let update = Query::update()
                .table(DELIVERIES)
                .value("order_key", order_key(&r.event_type, &r.payload))
                .and_where(Expr::col("id").eq(r.id))
                .to_owned();
            db.execute(&update).await?;
        }
        m.create_index(
            Index::create()
                .if_not_exists()
                .name(INDEX)
                .table(DELIVERIES)
                .col("webhook_id")
                .col("order_key")
                .col("seq")
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
                .drop_column("order_key")
                .to_owned(),
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::order_key;

    #[test]
    fn keys_follow_the_message_or_the_event_type() {
        assert_eq!(
            order_key(
                "message.sent",
                r#"{"id":"x","data":{"message_id":"0b6e1e2c-0000-4000-8000-000000000001"}}"#
            ),
            "message:0b6e1e2c-0000-4000-8000-000000000001"
        );
        assert_eq!(
            order_key("credit.low", r#"{"data":{"balance":1}}"#),
            "event:credit.low"
        );
        assert_eq!(order_key("credit.low", "not json"), "event:credit.low");
    }
}
