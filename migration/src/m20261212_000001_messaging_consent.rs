//! Opt-outs (issue 35): the addresses a workspace may not send to, every change of consent
//! kept for audit, and the workspace's own words for STOP, START and HELP.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

use crate::schema_helpers::{add_columns, cascade_to, drop_columns, index};

#[derive(DeriveMigrationName)]
pub struct Migration;

const SUPPRESSIONS: &str = "messaging_suppressions";
const EVENTS: &str = "messaging_consent_events";
const WORKSPACES: &str = "messaging_workspaces";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(SUPPRESSIONS)
                .if_not_exists()
                .col(uuid("id").primary_key())
                .col(uuid("workspace_id"))
                .col(string("channel"))
                .col(string("address"))
                .col(string("source"))
                .col(text("reason"))
                .col(uuid_null("message_id"))
                .col(timestamp_with_time_zone("created_at"))
                .foreign_key(&mut cascade_to(SUPPRESSIONS, "workspace_id", WORKSPACES))
                .to_owned(),
        )
        .await?;
        // One row per address: a send's check and a bulk's batch check are index look-ups.
        m.create_index(
            index(
                SUPPRESSIONS,
                "address",
                &["workspace_id", "channel", "address"],
            )
            .unique()
            .to_owned(),
        )
        .await?;
        m.create_index(index(
            SUPPRESSIONS,
            "listing",
            &["workspace_id", "created_at", "id"],
        ))
        .await?;
        m.create_table(
            Table::create()
                .table(EVENTS)
                .if_not_exists()
                .col(uuid("id").primary_key())
                .col(uuid("workspace_id"))
                .col(string("channel"))
                .col(string("address"))
                .col(string("action"))
                .col(string("source"))
                .col(text("reason"))
                .col(uuid_null("message_id"))
                .col(timestamp_with_time_zone("created_at"))
                .foreign_key(&mut cascade_to(EVENTS, "workspace_id", WORKSPACES))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            EVENTS,
            "address",
            &["workspace_id", "channel", "address", "created_at"],
        ))
        .await?;
        let cols = [
            text_null("opt_out_reply"),
            text_null("opt_in_reply"),
            text_null("help_reply"),
            string_null("unsubscribe_mailbox"),
        ];
        add_columns(m, WORKSPACES, cols).await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        drop_columns(
            m,
            WORKSPACES,
            &[
                "unsubscribe_mailbox",
                "help_reply",
                "opt_in_reply",
                "opt_out_reply",
            ],
        )
        .await?;
        for t in [EVENTS, SUPPRESSIONS] {
            m.drop_table(Table::drop().table(t).if_exists().to_owned())
                .await?;
        }
        Ok(())
    }
}
