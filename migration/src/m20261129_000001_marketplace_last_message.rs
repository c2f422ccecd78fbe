use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// The database keeps a conversation's last message in step with its messages: appending a
/// message is then one `INSERT … SELECT last_seq + 1 …` statement (one round trip, atomic
/// without a transaction) instead of a transaction of an UPDATE and an INSERT.
#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        let db = m.get_connection();
        let statements: &[&str] = match db.get_database_backend() {
            DbBackend::Sqlite => &[
                "CREATE TRIGGER IF NOT EXISTS marketplace_messages_last AFTER INSERT ON \
                 marketplace_messages BEGIN UPDATE marketplace_conversations SET \
                 last_seq = new.seq, last_message_id = new.id, last_message_at = new.created_at \
                 WHERE id = new.conversation_id; END",
            ],
            DbBackend::Postgres => &[
                "CREATE OR REPLACE FUNCTION marketplace_messages_last() RETURNS trigger AS $$ \
                 BEGIN UPDATE marketplace_conversations SET last_seq = NEW.seq, \
                 last_message_id = NEW.id, last_message_at = NEW.created_at \
                 WHERE id = NEW.conversation_id; RETURN NULL; END $$ LANGUAGE plpgsql",
                "DROP TRIGGER IF EXISTS marketplace_messages_last ON marketplace_messages",
                "CREATE TRIGGER marketplace_messages_last AFTER INSERT ON marketplace_messages \
                 FOR EACH ROW EXECUTE FUNCTION marketplace_messages_last()",
            ],
            other => return Err(DbErr::Custom(format!("unsupported backend {other:?}"))),
        };
        for sql in statements {
            db.execute_unprepared(sql).await?;
        }
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        let db = m.get_connection();
        let statements: &[&str] = match db.get_database_backend() {
            DbBackend::Postgres => &[
                "DROP TRIGGER IF EXISTS marketplace_messages_last ON marketplace_messages",
                "DROP FUNCTION IF EXISTS marketplace_messages_last()",
            ],
            _ => &["DROP TRIGGER IF EXISTS marketplace_messages_last"],
        };
        for sql in statements {
            db.execute_unprepared(sql).await?;
        }
        Ok(())
    }
}
