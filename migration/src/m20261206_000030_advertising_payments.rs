use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

use crate::schema_helpers::index;

#[derive(DeriveMigrationName)]
pub struct Migration;

const PAYMENTS: &str = "advertising_payments";
const EVENTS: &str = "advertising_payment_events";
const INVOICES: &str = "advertising_invoices";

/// Advertisers' payments (checkouts funding an ad), the payment provider's webhook events
/// seen (each handled once) and the invoices of paid checkouts.
#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(PAYMENTS)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("advertiser_id"))
                .col(uuid("ad_id"))
                .col(string("provider"))
                // Null while the provider is being asked; unique once known.
                .col(string_null("session_id").unique_key())
                .col(string_null("checkout_url"))
                // `pending`, `paid`, `failed` or `expired`.
                .col(string("status"))
                .col(big_integer("amount_cents"))
                .col(string("currency"))
                .col(string("success_url"))
                .col(string("cancel_url"))
                // Why a completed session funded nothing (amount or currency mismatch).
                .col(string_null("problem"))
                .col(uuid_null("transaction_id"))
                .col(timestamp_with_time_zone_null("paid_at"))
                .col(timestamp_with_time_zone("created_at"))
                .col(timestamp_with_time_zone("updated_at"))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            PAYMENTS,
            "advertiser",
            &["advertiser_id", "created_at"],
        ))
        .await?;
        // One pending checkout per ad, whoever races to make it (both databases have
        // partial indexes; the schema builder has no WHERE for them).
        m.get_connection()
            .execute_unprepared(&format!(
                "CREATE UNIQUE INDEX IF NOT EXISTS idx_{PAYMENTS}_one_pending \
                 ON {PAYMENTS} (ad_id) WHERE status = 'pending'"
            ))
            .await?;

        m.create_table(
            Table::create()
                .table(EVENTS)
                .if_not_exists()
                .col(string("event_id").primary_key())
                .col(string("kind"))
                .col(uuid_null("payment_id"))
                // What handling it did (`funded`, `mismatch`, `expired`, `ignored`, ...).
                .col(string("outcome"))
                .col(timestamp_with_time_zone("received_at"))
                .to_owned(),
        )
        .await?;

        m.create_table(
            Table::create()
                .table(INVOICES)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(string_uniq("number"))
                .col(uuid_uniq("payment_id"))
                .col(uuid("advertiser_id"))
                .col(uuid("ad_id"))
                .col(big_integer("amount_cents"))
                .col(string("currency"))
                .col(string("storage_key"))
                .col(timestamp_with_time_zone("issued_at"))
                .col(timestamp_with_time_zone_null("emailed_at"))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            INVOICES,
            "advertiser",
            &["advertiser_id", "issued_at"],
        ))
        .await?;
        m.create_index(index(INVOICES, "issued", &["issued_at"]))
            .await?;
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for t in [INVOICES, EVENTS, PAYMENTS] {
            m.drop_table(Table::drop().table(t).if_exists().to_owned())
                .await?;
        }
        Ok(())
    }
}
