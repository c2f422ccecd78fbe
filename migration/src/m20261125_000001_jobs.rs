//! The durable job queue (`src/core/jobs`): one table every service enqueues into. Interview
//! completion webhooks pending at upgrade get their job here, since the poller that took
//! them up is gone.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;
use sea_orm_migration::sea_orm::prelude::ChronoDateTimeUtc;
use sea_orm_migration::sea_orm::{ConnectionTrait, FromQueryResult};

#[derive(DeriveMigrationName)]
pub struct Migration;

const JOBS: &str = "core_jobs";
const DUE_INDEX: &str = "idx_core_jobs_due";
const TOPIC_INDEX: &str = "idx_core_jobs_topic";
const DELIVERIES: &str = "interview_webhook_deliveries";

/// The interview webhook job as the service writes it (src/services/interview/webhooks.rs),
/// repeated here so this migration keeps meaning what it meant when it ran; the attempts are
/// the default schedule's 10 and the service's margin of 3 for claims that never reached the
/// receiver.
const WEBHOOK_TOPIC: &str = "interview.webhook";
const WEBHOOK_MAX_ATTEMPTS: i32 = 13;

#[derive(FromQueryResult)]
struct Pending {
    id: uuid::Uuid,
    created_at: ChronoDateTimeUtc,
    next_attempt_at: Option<ChronoDateTimeUtc>,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(JOBS)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(string("topic"))
                .col(json("payload"))
                .col(timestamp_with_time_zone("run_at"))
                .col(integer("attempts"))
                .col(integer("max_attempts"))
                .col(string("status"))
                .col(string_null("lease_owner"))
                .col(timestamp_with_time_zone_null("lease_until"))
                .col(text_null("last_error"))
                .col(string_null("key").unique_key())
                .col(timestamp_with_time_zone("created_at"))
                .col(timestamp_with_time_zone("updated_at"))
                .to_owned(),
        )
        .await?;
        for (name, cols) in [
            (DUE_INDEX, ["status", "run_at"]),
            (TOPIC_INDEX, ["topic", "status"]),
        ] {
            m.create_index(
                Index::create()
                    .if_not_exists()
                    .name(name)
                    .table(JOBS)
                    .col(cols[0])
                    .col(cols[1])
                    .to_owned(),
            )
            .await?;
        }

        let db = m.get_connection();
        let select = Query::select()
            .columns(["id", "created_at", "next_attempt_at"])
            .from(DELIVERIES)
            .and_where(Expr::col("status").eq("pending"))
            .to_owned();
        let pending = Pending::find_by_statement(db.get_database_backend().build(&select))
            .all(db)
            .await?;
        for row in pending {
            let run_at = row.next_attempt_at.unwrap_or(row.created_at);
            let insert = Query::insert()
                .into_table(JOBS)
                .columns([
                    "id",
                    "topic",
                    "payload",
                    "run_at",
                    "attempts",
                    "max_attempts",
                    "status",
                    "key",
                    "created_at",
                    "updated_at",
                ])
                .values([
                    uuid::Uuid::new_v4().into(),
                    WEBHOOK_TOPIC.into(),
                    serde_json::json!({ "delivery_id": row.id }).into(),
                    run_at.into(),
                    0.into(),
                    WEBHOOK_MAX_ATTEMPTS.into(),
                    "queued".into(),
                    format!("{WEBHOOK_TOPIC}:{}", row.id).into(),
                    row.created_at.into(),
                    run_at.into(),
                ])
                .map_err(|e| DbErr::Custom(e.to_string()))?
                .to_owned();
            db.execute(&insert).await?;
        }
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(JOBS).to_owned()).await
    }
}
