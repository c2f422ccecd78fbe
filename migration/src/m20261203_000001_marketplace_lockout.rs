//! The marketplace's sign-in lockout (issue 19): wrong passwords in a row, how many locks
//! so far (each lasts twice as long), and until when the account is locked.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

const USERS: &str = "marketplace_users";

fn alter() -> TableAlterStatement {
    Table::alter().table(Alias::new(USERS)).to_owned()
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        // SQLite adds one column per statement.
        let columns = [
            integer("failed_logins").default(0).to_owned(),
            integer("lock_count").default(0).to_owned(),
            timestamp_with_time_zone_null("locked_until"),
        ];
        for mut c in columns {
            m.alter_table(alter().add_column(&mut c).to_owned()).await?;
        }
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for c in ["failed_logins", "lock_count", "locked_until"] {
            m.alter_table(alter().drop_column(Alias::new(c)).to_owned())
                .await?;
        }
        Ok(())
    }
}
