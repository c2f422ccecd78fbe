use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

use crate::schema_helpers::cascade_to;

#[derive(DeriveMigrationName)]
pub struct Migration;

const SESSIONS: &str = "interview_sessions";
const MESSAGES: &str = "interview_messages";
const REPORTS: &str = "interview_reports";
const DELIVERIES: &str = "interview_webhook_deliveries";
const ONBOARDING: &str = "interview_onboarding_sessions";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(SESSIONS)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(string_uniq("session_token"))
                .col(string("candidate_name"))
                .col(string_null("candidate_phone"))
                .col(string_null("candidate_email"))
                .col(string("job_title"))
                .col(string_null("job_category"))
                .col(text_null("job_description"))
                .col(string_null("experience_level"))
                .col(string_null("user_id"))
                .col(string_null("application_id"))
                .col(text_null("cv_url"))
                .col(text_null("cv_text"))
                .col(integer("max_questions"))
                .col(integer("time_limit_minutes"))
                .col(text_null("webhook_url"))
                .col(string_null("webhook_secret"))
                .col(boolean("send_sms"))
                .col(json("metadata"))
                .col(string("status"))
                .col(integer("questions_asked"))
                .col(big_integer("elapsed_secs"))
                .col(timestamp_with_time_zone_null("running_since"))
                .col(timestamp_with_time_zone_null("started_at"))
                .col(timestamp_with_time_zone_null("completed_at"))
                .col(string_null("completion_reason"))
                .col(timestamp_with_time_zone("created_at"))
                .col(timestamp_with_time_zone("expires_at"))
                .col(timestamp_with_time_zone("updated_at"))
                .to_owned(),
        )
        .await?;
        for (name, col) in [
            ("idx_interview_sessions_user", "user_id"),
            ("idx_interview_sessions_status", "status"),
        ] {
            m.create_index(
                Index::create()
                    .if_not_exists()
                    .name(name)
                    .table(SESSIONS)
                    .col(col)
                    .to_owned(),
            )
            .await?;
        }

        m.create_table(
            Table::create()
                .table(MESSAGES)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("session_id"))
                .col(string("role"))
                .col(string("message_type"))
                .col(text("content"))
                .col(integer("sequence_number"))
                .col(integer_null("question_number"))
                .col(string_null("question_category"))
                .col(json_null("suggestions"))
                .col(json_null("score"))
                .col(timestamp_with_time_zone("created_at"))
                .foreign_key(&mut cascade_to(MESSAGES, "session_id", SESSIONS))
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .if_not_exists()
                .name("idx_interview_messages_session_seq")
                .table(MESSAGES)
                .col("session_id")
                .col("sequence_number")
                .unique()
                .to_owned(),
        )
        .await?;

        m.create_table(
            Table::create()
                .table(REPORTS)
                .if_not_exists()
                .col(uuid("session_id").primary_key())
                .col(double("overall_score"))
                .col(json("data"))
                .col(timestamp_with_time_zone("created_at"))
                .foreign_key(
                    &mut ForeignKey::create()
                        .from(REPORTS, "session_id")
                        .to(SESSIONS, "id")
                        .on_delete(ForeignKeyAction::Cascade)
                        .to_owned(),
                )
                .to_owned(),
        )
        .await?;

        m.create_table(
            Table::create()
                .table(DELIVERIES)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("session_id"))
                .col(text("url"))
                .col(text("body"))
                .col(string_null("signature"))
                .col(string("status"))
                .col(integer("attempts"))
                .col(text_null("last_error"))
                .col(integer_null("last_status"))
                .col(timestamp_with_time_zone("created_at"))
                .col(timestamp_with_time_zone_null("delivered_at"))
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .if_not_exists()
                .name("idx_interview_deliveries_status")
                .table(DELIVERIES)
                .col("status")
                .to_owned(),
        )
        .await?;

        m.create_table(
            Table::create()
                .table(ONBOARDING)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(string_uniq("session_token"))
                .col(string("user_id"))
                .col(string("session_type"))
                .col(json("transcript"))
                .col(json("extracted_data"))
                .col(boolean("profile_complete"))
                .col(timestamp_with_time_zone("created_at"))
                .col(timestamp_with_time_zone("updated_at"))
                .to_owned(),
        )
        .await?;
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for t in [ONBOARDING, DELIVERIES, REPORTS, MESSAGES, SESSIONS] {
            m.drop_table(Table::drop().table(t).if_exists().to_owned())
                .await?;
        }
        Ok(())
    }
}
