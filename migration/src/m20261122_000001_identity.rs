use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

use crate::schema_helpers::cascade_to;

#[derive(DeriveMigrationName)]
pub struct Migration;

const USERS: &str = "identity_users";
const OTP: &str = "identity_otp_codes";
const TEMP: &str = "identity_temp_tokens";
const SESSIONS: &str = "identity_sessions";
const REFRESH: &str = "identity_refresh_tokens";
const KYC: &str = "identity_kyc_verifications";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(USERS)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(string_uniq("phone"))
                .col(boolean("phone_verified"))
                .col(string_uniq("handle"))
                .col(string_uniq("handle_canonical"))
                .col(string_null("name"))
                .col(text_null("avatar_url"))
                .col(text("bio"))
                .col(string("country"))
                .col(string("language"))
                .col(string("pin_hash"))
                .col(string("kyc_status"))
                .col(string_null("kyc_level"))
                .col(json_null("kyc_documents"))
                .col(timestamp_with_time_zone_null("kyc_verified_at"))
                .col(integer("failed_signins"))
                .col(integer("lock_count"))
                .col(timestamp_with_time_zone_null("locked_until"))
                .col(timestamp_with_time_zone_null("handle_changed_at"))
                .col(timestamp_with_time_zone_null("deleted_at"))
                .col(timestamp_with_time_zone("created_at"))
                .col(timestamp_with_time_zone("updated_at"))
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .if_not_exists()
                .name("idx_identity_users_deleted_at")
                .table(USERS)
                .col("deleted_at")
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
                .name("idx_identity_otp_phone_purpose")
                .table(OTP)
                .col("phone")
                .col("purpose")
                .to_owned(),
        )
        .await?;

        m.create_table(
            Table::create()
                .table(TEMP)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(string_uniq("token_hash"))
                .col(string("phone"))
                .col(string("purpose"))
                .col(timestamp_with_time_zone("expires_at"))
                .col(timestamp_with_time_zone_null("used_at"))
                .col(timestamp_with_time_zone("created_at"))
                .to_owned(),
        )
        .await?;

        m.create_table(
            Table::create()
                .table(SESSIONS)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("user_id"))
                .col(string("device_name"))
                .col(string("platform"))
                .col(string("ip_address"))
                .col(timestamp_with_time_zone("created_at"))
                .col(timestamp_with_time_zone("last_used_at"))
                .col(timestamp_with_time_zone("expires_at"))
                .col(timestamp_with_time_zone_null("revoked_at"))
                .foreign_key(&mut cascade_to(SESSIONS, "user_id", USERS))
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .if_not_exists()
                .name("idx_identity_sessions_user")
                .table(SESSIONS)
                .col("user_id")
                .to_owned(),
        )
        .await?;

        m.create_table(
            Table::create()
                .table(REFRESH)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("session_id"))
                .col(string_uniq("token_hash"))
                .col(timestamp_with_time_zone("created_at"))
                .col(timestamp_with_time_zone_null("rotated_at"))
                .foreign_key(&mut cascade_to(REFRESH, "session_id", SESSIONS))
                .to_owned(),
        )
        .await?;

        m.create_table(
            Table::create()
                .table(KYC)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("user_id"))
                .col(string_uniq("token_hash"))
                .col(timestamp_with_time_zone("expires_at"))
                .col(timestamp_with_time_zone_null("completed_at"))
                .col(timestamp_with_time_zone("created_at"))
                .foreign_key(&mut cascade_to(KYC, "user_id", USERS))
                .to_owned(),
        )
        .await?;
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for t in [KYC, REFRESH, SESSIONS, TEMP, OTP, USERS] {
            m.drop_table(Table::drop().table(t).if_exists().to_owned())
                .await?;
        }
        Ok(())
    }
}
