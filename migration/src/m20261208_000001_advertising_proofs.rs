//! Proof that a screenshot shows the subscription's own video (issue 31): each subscription
//! gets the exact text burnt into its video (`proof_code`: the poster's referral code and a
//! tag of the subscription; old ones keep the referral code they were burnt with) and its
//! key frames (`proof_frames`, JSON: storage key, frame count, the code's box); each
//! screenshot keeps why it was decided (`evidence`, JSON), a stable `reason_code` (the
//! resubmission limit counts `not_shown`) and a small grey print of where the code is
//! (`detail_print`), so two posters' screenshots of one frame are not duplicates.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

use crate::schema_helpers::{add_column as add, drop_column as drop, index};

#[derive(DeriveMigrationName)]
pub struct Migration;

const SUBSCRIPTIONS: &str = "advertising_subscriptions";
const SCREENSHOTS: &str = "advertising_screenshots";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        add(
            m,
            SUBSCRIPTIONS,
            string("proof_code").default("").to_owned(),
        )
        .await?;
        add(m, SUBSCRIPTIONS, text_null("proof_frames")).await?;
        m.get_connection()
            .execute_unprepared(
                "UPDATE advertising_subscriptions SET proof_code = \
                 (SELECT p.referral_code FROM advertising_posters p \
                  WHERE p.id = advertising_subscriptions.poster_id) \
                 WHERE proof_code = ''",
            )
            .await?;
        add(m, SCREENSHOTS, text_null("evidence")).await?;
        add(m, SCREENSHOTS, string_null("reason_code")).await?;
        add(m, SCREENSHOTS, string_null("detail_print")).await?;
        m.get_connection()
            .execute_unprepared(
                "UPDATE advertising_screenshots SET reason_code = 'duplicate' \
                 WHERE reason = 'duplicate'",
            )
            .await?;
        // The resubmission limit: one poster's recent rejections of one kind.
        m.create_index(index(
            SCREENSHOTS,
            "rejections",
            &["poster_id", "reason_code", "decided_at"],
        ))
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_index(
            Index::drop()
                .name("idx_advertising_screenshots_rejections")
                .table(Alias::new(SCREENSHOTS))
                .to_owned(),
        )
        .await?;
        for col in ["detail_print", "reason_code", "evidence"] {
            drop(m, SCREENSHOTS, col).await?;
        }
        for col in ["proof_frames", "proof_code"] {
            drop(m, SUBSCRIPTIONS, col).await?;
        }
        Ok(())
    }
}
