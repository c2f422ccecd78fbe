use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

use crate::schema_helpers::{cascade_to, index};

#[derive(DeriveMigrationName)]
pub struct Migration;

const USERS: &str = "marketplace_users";
const CONVERSATIONS: &str = "marketplace_conversations";
const MESSAGES: &str = "marketplace_messages";

/// Each index serves one list or count: `(table, name, unique, columns)`.
const INDEXES: [(&str, &str, bool, &[&str]); 6] = [
    // One conversation per pair, stored with `user_a < user_b`.
    (CONVERSATIONS, "pair", true, &["user_a", "user_b"]),
    // A user's conversations, newest first (one index per side of the pair).
    (
        CONVERSATIONS,
        "a_recent",
        false,
        &["user_a", "last_message_at"],
    ),
    (
        CONVERSATIONS,
        "b_recent",
        false,
        &["user_b", "last_message_at"],
    ),
    // A conversation's messages in order; the sequence is unique per conversation.
    (MESSAGES, "order", true, &["conversation_id", "seq"]),
    // The total unread count of a user, and the unread count of one conversation.
    (MESSAGES, "unread", false, &["receiver_id", "read_at"]),
    (
        MESSAGES,
        "conversation_unread",
        false,
        &["conversation_id", "receiver_id", "read_at"],
    ),
];

/// Direct messages between two users. A conversation row holds the pair, the last sequence
/// number handed out and the last message (for the conversations list); unread counts are
/// not stored but counted on the indexed `(receiver_id, read_at)`, so they cannot drift.
#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(CONVERSATIONS)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("user_a"))
                .col(uuid("user_b"))
                .col(big_integer("last_seq").default(0))
                .col(uuid_null("last_message_id"))
                .col(timestamp_with_time_zone_null("last_message_at"))
                .col(timestamp_with_time_zone("created_at"))
                .foreign_key(&mut cascade_to(CONVERSATIONS, "user_a", USERS))
                .foreign_key(&mut cascade_to(CONVERSATIONS, "user_b", USERS))
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(MESSAGES)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("conversation_id"))
                .col(big_integer("seq"))
                .col(uuid("sender_id"))
                .col(uuid("receiver_id"))
                .col(text("text"))
                .col(timestamp_with_time_zone("created_at"))
                .col(timestamp_with_time_zone_null("read_at"))
                .foreign_key(&mut cascade_to(MESSAGES, "conversation_id", CONVERSATIONS))
                .foreign_key(&mut cascade_to(MESSAGES, "sender_id", USERS))
                .foreign_key(&mut cascade_to(MESSAGES, "receiver_id", USERS))
                .to_owned(),
        )
        .await?;
        for (table, name, unique, cols) in INDEXES {
            let mut index = index(table, name, cols);
            if unique {
                index.unique();
            }
            m.create_index(index).await?;
        }
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for table in [MESSAGES, CONVERSATIONS] {
            m.drop_table(Table::drop().table(table).if_exists().to_owned())
                .await?;
        }
        Ok(())
    }
}
