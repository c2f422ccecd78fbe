//! Schema migrations, one file per step, run at start-up and by `switchboard migrate`.
//! Written with the schema builder, so one migration serves SQLite and PostgreSQL; only
//! full-text search speaks each database's own SQL (FTS5, tsvector and pg_trgm).

pub use sea_orm_migration::prelude::*;

mod m20261122_000001_identity;
mod m20261122_000002_messaging;
mod m20261122_000003_interview;
mod m20261124_000001_webhook_hardening;
mod m20261124_000002_retention_indexes;
mod m20261124_000003_webhook_order_key;
mod m20261124_000004_interview_webhook_schedule;
mod m20261125_000001_jobs;
mod m20261126_000001_marketplace;
mod m20261126_000002_marketplace_dealers;
mod m20261127_000001_marketplace_cars;
mod m20261127_000002_marketplace_dealer_profiles;
mod m20261127_000003_marketplace_catalogue;
mod m20261127_000003_marketplace_interactions;
mod m20261128_000001_marketplace_messages;
mod m20261129_000001_marketplace_last_message;
mod m20261130_000001_messaging_claims;
mod m20261201_000001_core_otp_codes;
mod m20261202_000001_marketplace_list_counts;
mod m20261203_000001_marketplace_lockout;
mod m20261203_000005_marketplace_catalogue_sightings;
mod m20261204_000001_marketplace_dealer_phone_choice;
mod m20261204_000018_marketplace_facet_counts;
mod m20261205_000001_advertising;
mod m20261205_000001_marketplace_search_key;
mod m20261205_000002_advertising_list_indexes;
mod m20261206_000001_advertising_ad_counts;
mod m20261206_000002_marketplace_range_counts;
mod m20261206_000010_advertising_accounts;
mod m20261206_000020_advertising_advertisers;
mod m20261206_000030_advertising_payments;
mod m20261207_000001_core_actor_leases;
mod m20261208_000001_advertising_proofs;
mod m20261209_000001_advertising_refunds;
mod m20261209_000010_advertising_guard_cooldown;
mod m20261209_000020_advertising_signin_guard;
mod m20261210_000001_core_nodes;
mod m20261211_000001_messaging_webhook_attempt_owner;
mod m20261212_000001_messaging_consent;
mod m20261213_000001_marketplace_fuel_body_indexes;
mod schema_helpers;

pub struct Migrator;

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![
            Box::new(m20261122_000001_identity::Migration),
            Box::new(m20261122_000002_messaging::Migration),
            Box::new(m20261122_000003_interview::Migration),
            Box::new(m20261124_000001_webhook_hardening::Migration),
            Box::new(m20261124_000002_retention_indexes::Migration),
            Box::new(m20261124_000003_webhook_order_key::Migration),
            Box::new(m20261124_000004_interview_webhook_schedule::Migration),
            Box::new(m20261125_000001_jobs::Migration),
            Box::new(m20261126_000001_marketplace::Migration),
            Box::new(m20261126_000002_marketplace_dealers::Migration),
            Box::new(m20261127_000001_marketplace_cars::Migration),
            Box::new(m20261127_000002_marketplace_dealer_profiles::Migration),
            Box::new(m20261127_000003_marketplace_catalogue::Migration),
            Box::new(m20261127_000003_marketplace_interactions::Migration),
            Box::new(m20261128_000001_marketplace_messages::Migration),
            Box::new(m20261129_000001_marketplace_last_message::Migration),
            Box::new(m20261130_000001_messaging_claims::Migration),
            Box::new(m20261201_000001_core_otp_codes::Migration),
            Box::new(m20261202_000001_marketplace_list_counts::Migration),
            Box::new(m20261203_000001_marketplace_lockout::Migration),
            Box::new(m20261203_000005_marketplace_catalogue_sightings::Migration),
            Box::new(m20261204_000001_marketplace_dealer_phone_choice::Migration),
            Box::new(m20261204_000018_marketplace_facet_counts::Migration),
            Box::new(m20261205_000001_advertising::Migration),
            Box::new(m20261205_000001_marketplace_search_key::Migration),
            Box::new(m20261205_000002_advertising_list_indexes::Migration),
            Box::new(m20261206_000010_advertising_accounts::Migration),
            Box::new(m20261206_000020_advertising_advertisers::Migration),
            Box::new(m20261206_000030_advertising_payments::Migration),
            Box::new(m20261206_000001_advertising_ad_counts::Migration),
            Box::new(m20261206_000002_marketplace_range_counts::Migration),
            Box::new(m20261207_000001_core_actor_leases::Migration),
            Box::new(m20261208_000001_advertising_proofs::Migration),
            Box::new(m20261209_000001_advertising_refunds::Migration),
            Box::new(m20261209_000010_advertising_guard_cooldown::Migration),
            Box::new(m20261209_000020_advertising_signin_guard::Migration),
            Box::new(m20261210_000001_core_nodes::Migration),
            Box::new(m20261211_000001_messaging_webhook_attempt_owner::Migration),
            Box::new(m20261212_000001_messaging_consent::Migration),
            Box::new(m20261213_000001_marketplace_fuel_body_indexes::Migration),
        ]
    }
}
