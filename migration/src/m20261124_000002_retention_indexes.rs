//! Indexes for what queries and the retention job filter by, and the per-phone log of failed
//! OTP codes behind the rolling 24-hour cap.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

const OTP_FAILURES: &str = "identity_otp_failures";

/// (index, table, columns)
const INDEXES: [(&str, &str, &[&str]); 7] = [
    // KYC status and initiation look up a user's verifications.
    (
        "idx_identity_kyc_user",
        "identity_kyc_verifications",
        &["user_id"],
    ),
    // Retention deletes a session's tokens; cascades from sessions look them up too.
    (
        "idx_identity_refresh_session",
        "identity_refresh_tokens",
        &["session_id"],
    ),
    (
        "idx_identity_refresh_rotated",
        "identity_refresh_tokens",
        &["rotated_at"],
    ),
    // GET /api/v1/sessions/user/{id}: filter by user, newest first.
    (
        "idx_interview_sessions_user_created",
        "interview_sessions",
        &["user_id", "created_at"],
    ),
    (
        "idx_messaging_idempotency_created",
        "messaging_idempotency_keys",
        &["created_at"],
    ),
    (
        "idx_messaging_attempts_delivered",
        "messaging_delivery_attempts",
        &["delivered_at"],
    ),
    (
        "idx_identity_otp_failures_phone",
        OTP_FAILURES,
        &["phone", "failed_at"],
    ),
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(OTP_FAILURES)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(string("phone"))
                .col(timestamp_with_time_zone("failed_at"))
                .to_owned(),
        )
        .await?;
        for (name, table, cols) in INDEXES {
            let mut i = Index::create();
            i.if_not_exists().name(name).table(table);
            for c in cols {
                i.col(*c);
            }
            m.create_index(i.to_owned()).await?;
        }
        // The (user_id, created_at) index serves every query the user_id one did.
        m.drop_index(
            Index::drop()
                .if_exists()
                .name("idx_interview_sessions_user")
                .table("interview_sessions")
                .to_owned(),
        )
        .await?;
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_index(
            Index::create()
                .if_not_exists()
                .name("idx_interview_sessions_user")
                .table("interview_sessions")
                .col("user_id")
                .to_owned(),
        )
        .await?;
        for (name, table, _) in INDEXES {
            m.drop_index(Index::drop().if_exists().name(name).table(table).to_owned())
                .await?;
        }
        m.drop_table(Table::drop().table(OTP_FAILURES).if_exists().to_owned())
            .await?;
        Ok(())
    }
}
