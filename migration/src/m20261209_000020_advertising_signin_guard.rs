//! Sign-in abuse (issue 32): a guard row per address that signs in by password (advertisers
//! and administrators, known or not, keyed by a hash of the kind and the lowercased address)
//! with the failures since the last success and the lock they set; administrators' TOTP
//! secrets (sealed) and their one-time recovery codes (hashed).

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

use crate::schema_helpers::{cascade_to, index};

#[derive(DeriveMigrationName)]
pub struct Migration;

const GUARDS: &str = "advertising_signin_guards";
const TOTP: &str = "advertising_admin_totp";
const RECOVERY: &str = "advertising_admin_recovery_codes";
const ADMINS: &str = "advertising_admins";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(GUARDS)
                .if_not_exists()
                .col(string("key").primary_key())
                .col(integer("failures").default(0))
                .col(timestamp_with_time_zone_null("locked_until"))
                .col(timestamp_with_time_zone("updated_at"))
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(TOTP)
                .if_not_exists()
                .col(pk_uuid("admin_id"))
                // base64 of nonce and AES-256-GCM ciphertext: a database copy alone yields no
                // working secret.
                .col(string("secret_sealed"))
                .col(timestamp_with_time_zone_null("confirmed_at"))
                // The newest 30-second step whose code was accepted: a code works once.
                .col(big_integer_null("last_step"))
                .col(timestamp_with_time_zone("created_at"))
                .col(timestamp_with_time_zone("updated_at"))
                .foreign_key(&mut cascade_to(TOTP, "admin_id", ADMINS))
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(RECOVERY)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("admin_id"))
                .col(string("code_hash"))
                .col(timestamp_with_time_zone_null("used_at"))
                .col(timestamp_with_time_zone("created_at"))
                .foreign_key(&mut cascade_to(RECOVERY, "admin_id", ADMINS))
                .to_owned(),
        )
        .await?;
        m.create_index(index(RECOVERY, "admin", &["admin_id"]))
            .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for t in [RECOVERY, TOTP, GUARDS] {
            m.drop_table(Table::drop().table(t).if_exists().to_owned())
                .await?;
        }
        Ok(())
    }
}
