use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

use crate::schema_helpers::index;

#[derive(DeriveMigrationName)]
pub struct Migration;

const ADVERTISERS: &str = "advertising_advertisers";
const ADMINS: &str = "advertising_admins";

/// The advertising platform's other accounts (part 2): advertisers, who sign in by email
/// and password and fund ads, and administrators with a role. Their sign-ins are rows of
/// `advertising_sessions` like posters', told apart by `kind`.
#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(ADVERTISERS)
                .if_not_exists()
                .col(pk_uuid("id"))
                // Lowercased and trimmed: one account per address however it is typed.
                .col(string_uniq("email"))
                .col(string("password_hash"))
                .col(string("company_name"))
                .col(string("country_code"))
                .col(string_null("contact_name"))
                .col(string_null("phone"))
                .col(string_null("website"))
                .col(timestamp_with_time_zone_null("email_verified_at"))
                .col(timestamp_with_time_zone("created_at"))
                .col(timestamp_with_time_zone("updated_at"))
                .to_owned(),
        )
        .await?;
        m.create_index(index(ADVERTISERS, "created", &["created_at"]))
            .await?;

        m.create_table(
            Table::create()
                .table(ADMINS)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(string_uniq("email"))
                .col(string("password_hash"))
                .col(string("role"))
                .col(timestamp_with_time_zone("created_at"))
                .col(timestamp_with_time_zone("updated_at"))
                .to_owned(),
        )
        .await?;
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for t in [ADMINS, ADVERTISERS] {
            m.drop_table(Table::drop().table(t).if_exists().to_owned())
                .await?;
        }
        Ok(())
    }
}
