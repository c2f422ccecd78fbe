//! One table of one-time codes for every service (`core::otp`), in place of identity's and the
//! marketplace's identical tables. Codes live minutes, so the old tables' rows are not carried
//! over: a code sent just before the upgrade is asked for again.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

const OTP: &str = "core_otp_codes";
const OLD: [&str; 2] = ["identity_otp_codes", "marketplace_otp_codes"];

fn otp_table(name: &str, with_service: bool) -> TableCreateStatement {
    let mut t = Table::create();
    t.table(Alias::new(name)).if_not_exists().col(pk_uuid("id"));
    if with_service {
        t.col(string("service"));
    }
    t.col(string("phone"))
        .col(string("purpose"))
        .col(string("code_hash"))
        .col(integer("attempts"))
        .col(timestamp_with_time_zone("expires_at"))
        .col(timestamp_with_time_zone_null("consumed_at"))
        .col(timestamp_with_time_zone("created_at"));
    t.to_owned()
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(otp_table(OTP, true)).await?;
        m.create_index(
            Index::create()
                .if_not_exists()
                .name("idx_core_otp_service_phone_purpose")
                .table(OTP)
                .col("service")
                .col("phone")
                .col("purpose")
                .to_owned(),
        )
        .await?;
        // The purge of expired codes.
        m.create_index(
            Index::create()
                .if_not_exists()
                .name("idx_core_otp_expires_at")
                .table(OTP)
                .col("expires_at")
                .to_owned(),
        )
        .await?;
        for old in OLD {
            m.drop_table(Table::drop().table(Alias::new(old)).if_exists().to_owned())
                .await?;
        }
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for old in OLD {
            m.create_table(otp_table(old, false)).await?;
        }
        m.drop_table(Table::drop().table(OTP).if_exists().to_owned())
            .await
    }
}
