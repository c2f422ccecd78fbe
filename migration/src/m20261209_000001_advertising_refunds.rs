//! Money that comes back (issue 32): a payment records its PaymentIntent (refunds and
//! disputes name it), what was refunded so far (`refunded_cents`, Stripe's cumulative
//! `amount_refunded`), what an open dispute holds (`held_cents`) and the dispute's state;
//! an advertiser can be suspended.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

use crate::schema_helpers::{add_column as add, drop_column as drop, index};

#[derive(DeriveMigrationName)]
pub struct Migration;

const PAYMENTS: &str = "advertising_payments";
const ADVERTISERS: &str = "advertising_advertisers";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        add(m, PAYMENTS, string_null("payment_intent")).await?;
        add(
            m,
            PAYMENTS,
            big_integer("refunded_cents").default(0).to_owned(),
        )
        .await?;
        add(m, PAYMENTS, big_integer("held_cents").default(0).to_owned()).await?;
        add(m, PAYMENTS, string_null("dispute_id")).await?;
        add(m, PAYMENTS, string_null("dispute_status")).await?;
        m.create_index(index(PAYMENTS, "payment_intent", &["payment_intent"]))
            .await?;
        add(
            m,
            ADVERTISERS,
            timestamp_with_time_zone_null("suspended_at"),
        )
        .await?;
        add(m, ADVERTISERS, string_null("suspended_reason")).await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_index(
            Index::drop()
                .name("idx_advertising_payments_payment_intent")
                .table(Alias::new(PAYMENTS))
                .to_owned(),
        )
        .await?;
        for col in [
            "dispute_status",
            "dispute_id",
            "held_cents",
            "refunded_cents",
            "payment_intent",
        ] {
            drop(m, PAYMENTS, col).await?;
        }
        for col in ["suspended_reason", "suspended_at"] {
            drop(m, ADVERTISERS, col).await?;
        }
        Ok(())
    }
}
