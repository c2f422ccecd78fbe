use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

use crate::schema_helpers::cascade_to;

#[derive(DeriveMigrationName)]
pub struct Migration;

const USERS: &str = "marketplace_users";
const OTP: &str = "marketplace_otp_codes";
const REFRESH: &str = "marketplace_refresh_tokens";
const RESET: &str = "marketplace_reset_tokens";

/// The marketplace's accounts: users, one-time codes, refresh tokens (one family per login,
/// so reuse of a rotated token revokes the family) and single-use password-reset tokens.
#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(USERS)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(string_uniq("phone"))
                .col(string_null("email"))
                .col(string_null("name"))
                .col(string("password_hash"))
                .col(string("role"))
                .col(boolean("is_phone_verified"))
                .col(timestamp_with_time_zone("created_at"))
                .col(timestamp_with_time_zone("updated_at"))
                .to_owned(),
        )
        .await?;

        m.create_table(
            Table::create()
                .table(OTP)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(string("phone"))
                .col(string("purpose"))
                .col(string("code_hash"))
                .col(integer("attempts"))
                .col(timestamp_with_time_zone("expires_at"))
                .col(timestamp_with_time_zone_null("consumed_at"))
                .col(timestamp_with_time_zone("created_at"))
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .if_not_exists()
                .name("idx_marketplace_otp_phone_purpose")
                .table(OTP)
                .col("phone")
                .col("purpose")
                .to_owned(),
        )
        .await?;

        m.create_table(
            Table::create()
                .table(REFRESH)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("user_id"))
                .col(uuid("family_id"))
                .col(string_uniq("token_hash"))
                .col(timestamp_with_time_zone("expires_at"))
                .col(timestamp_with_time_zone("created_at"))
                .col(timestamp_with_time_zone_null("rotated_at"))
                .col(timestamp_with_time_zone_null("revoked_at"))
                .foreign_key(&mut cascade_to(REFRESH, "user_id", USERS))
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .if_not_exists()
                .name("idx_marketplace_refresh_family")
                .table(REFRESH)
                .col("family_id")
                .to_owned(),
        )
        .await?;

        m.create_table(
            Table::create()
                .table(RESET)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("user_id"))
                .col(string_uniq("token_hash"))
                .col(timestamp_with_time_zone("expires_at"))
                .col(timestamp_with_time_zone_null("used_at"))
                .col(timestamp_with_time_zone("created_at"))
                .foreign_key(&mut cascade_to(RESET, "user_id", USERS))
                .to_owned(),
        )
        .await?;
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for t in [RESET, REFRESH, OTP, USERS] {
            m.drop_table(Table::drop().table(t).if_exists().to_owned())
                .await?;
        }
        Ok(())
    }
}
