use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

use crate::schema_helpers::{cascade_to, index};

#[derive(DeriveMigrationName)]
pub struct Migration;

const POSTERS: &str = "advertising_posters";
const SESSIONS: &str = "advertising_sessions";
const PHONE_GUARDS: &str = "advertising_phone_guards";
const DEVICE_TOKENS: &str = "advertising_device_tokens";
const CATEGORIES: &str = "advertising_categories";
const ADS: &str = "advertising_ads";
const SUBSCRIPTIONS: &str = "advertising_subscriptions";
const SCREENSHOTS: &str = "advertising_screenshots";
const TRANSACTIONS: &str = "advertising_transactions";
const ENTRIES: &str = "advertising_ledger_entries";
const BALANCES: &str = "advertising_balances";
const WITHDRAWALS: &str = "advertising_withdrawals";
const TICKETS: &str = "advertising_support_tickets";
const TICKET_MESSAGES: &str = "advertising_support_messages";

/// The ad categories every deployment starts with: (id, name, description).
const SEEDED_CATEGORIES: [(&str, &str, &str); 12] = [
    (
        "food-drink",
        "Food & Drink",
        "Restaurants, groceries, drinks and delivery",
    ),
    ("fashion", "Fashion", "Clothing, shoes and accessories"),
    (
        "beauty",
        "Beauty & Care",
        "Cosmetics, skincare and personal care",
    ),
    (
        "technology",
        "Technology",
        "Phones, gadgets, apps and software",
    ),
    (
        "finance",
        "Finance",
        "Banking, payments, savings and insurance",
    ),
    (
        "entertainment",
        "Entertainment",
        "Music, film, events and streaming",
    ),
    ("gaming", "Gaming", "Games, consoles and esports"),
    ("travel", "Travel", "Flights, hotels and tours"),
    (
        "health",
        "Health & Fitness",
        "Gyms, wellness and healthcare",
    ),
    (
        "education",
        "Education",
        "Courses, schools and learning apps",
    ),
    ("automotive", "Automotive", "Cars, parts and ride services"),
    (
        "home",
        "Home & Living",
        "Furniture, appliances and real estate",
    ),
];

/// The advertising platform's records (part 1: posters, ads, subscriptions, screenshots,
/// the ledger, withdrawals, support). Advertisers, payments and moderation add to them.
#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(POSTERS)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(string_uniq("phone"))
                .col(string("country"))
                .col(string_null("name"))
                .col(string_null("email"))
                .col(string_null("avatar_url"))
                .col(string_uniq("referral_code"))
                .col(string("status"))
                .col(string("kyc_status"))
                .col(timestamp_with_time_zone("created_at"))
                .col(timestamp_with_time_zone("updated_at"))
                .to_owned(),
        )
        .await?;
        m.create_index(index(POSTERS, "created", &["created_at"]))
            .await?;

        m.create_table(
            Table::create()
                .table(SESSIONS)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(string("kind"))
                .col(uuid("account_id"))
                .col(timestamp_with_time_zone("expires_at"))
                .col(timestamp_with_time_zone_null("revoked_at"))
                .col(timestamp_with_time_zone("created_at"))
                .to_owned(),
        )
        .await?;
        m.create_index(index(SESSIONS, "account", &["account_id"]))
            .await?;

        m.create_table(
            Table::create()
                .table(PHONE_GUARDS)
                .if_not_exists()
                .col(string("phone").primary_key())
                .col(string("country"))
                .col(timestamp_with_time_zone_null("last_sent_at"))
                .col(integer("failures"))
                .col(timestamp_with_time_zone_null("locked_until"))
                .to_owned(),
        )
        .await?;

        m.create_table(
            Table::create()
                .table(DEVICE_TOKENS)
                .if_not_exists()
                .col(uuid("poster_id").primary_key())
                .col(string("token"))
                .col(string("platform"))
                .col(timestamp_with_time_zone("updated_at"))
                .foreign_key(&mut cascade_to(DEVICE_TOKENS, "poster_id", POSTERS))
                .to_owned(),
        )
        .await?;

        m.create_table(
            Table::create()
                .table(CATEGORIES)
                .if_not_exists()
                .col(string("id").primary_key())
                .col(string_uniq("name"))
                .col(string("description"))
                .to_owned(),
        )
        .await?;
        let mut seed = Query::insert();
        seed.into_table(CATEGORIES)
            .columns(["id", "name", "description"]);
        for (id, name, description) in SEEDED_CATEGORIES {
            seed.values_panic([id.into(), name.into(), description.into()]);
        }
        m.exec_stmt(seed).await?;

        m.create_table(
            Table::create()
                .table(ADS)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid_null("advertiser_id"))
                .col(string("title"))
                .col(text_null("description"))
                .col(string_null("category_id"))
                .col(string("country"))
                .col(text("video_source"))
                .col(big_integer("payout_cents"))
                .col(big_integer("budget_cents"))
                .col(big_integer("funded_cents"))
                .col(big_integer("reserved_cents"))
                .col(big_integer("spent_cents"))
                .col(string("status"))
                .col(text_null("status_reason"))
                .col(boolean("listed"))
                .col(timestamp_with_time_zone("created_at"))
                .col(timestamp_with_time_zone("updated_at"))
                .to_owned(),
        )
        .await?;
        m.create_index(index(ADS, "listing", &["listed", "country", "created_at"]))
            .await?;
        m.create_index(index(ADS, "advertiser", &["advertiser_id"]))
            .await?;

        m.create_table(
            Table::create()
                .table(SUBSCRIPTIONS)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("poster_id"))
                .col(uuid("ad_id"))
                .col(text("phone_info"))
                .col(string("status"))
                .col(text_null("failure_reason"))
                .col(string_null("video_key"))
                .col(timestamp_with_time_zone("created_at"))
                .col(timestamp_with_time_zone("updated_at"))
                .foreign_key(&mut cascade_to(SUBSCRIPTIONS, "poster_id", POSTERS))
                .foreign_key(&mut cascade_to(SUBSCRIPTIONS, "ad_id", ADS))
                .to_owned(),
        )
        .await?;
        m.create_index(
            index(SUBSCRIPTIONS, "poster_ad", &["poster_id", "ad_id"])
                .unique()
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            SUBSCRIPTIONS,
            "poster_created",
            &["poster_id", "created_at"],
        ))
        .await?;
        m.create_index(index(SUBSCRIPTIONS, "ad_created", &["ad_id", "created_at"]))
            .await?;

        m.create_table(
            Table::create()
                .table(SCREENSHOTS)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("poster_id"))
                .col(uuid("subscription_id"))
                .col(uuid("ad_id"))
                .col(string("image_key"))
                .col(string("content_type"))
                .col(integer("width"))
                .col(integer("height"))
                .col(big_integer("phash"))
                .col(integer("band0"))
                .col(integer("band1"))
                .col(integer("band2"))
                .col(integer("band3"))
                .col(integer("band4"))
                .col(integer("band5"))
                .col(integer("band6"))
                .col(integer("band7"))
                .col(string("status"))
                .col(text_null("reason"))
                .col(big_integer("payout_cents"))
                .col(uuid_null("open_subscription_id").unique_key())
                .col(uuid_null("approved_subscription_id").unique_key())
                .col(string_null("decided_by"))
                .col(timestamp_with_time_zone_null("decided_at"))
                .col(timestamp_with_time_zone("created_at"))
                .col(timestamp_with_time_zone("updated_at"))
                .foreign_key(&mut cascade_to(SCREENSHOTS, "poster_id", POSTERS))
                .foreign_key(&mut cascade_to(
                    SCREENSHOTS,
                    "subscription_id",
                    SUBSCRIPTIONS,
                ))
                .to_owned(),
        )
        .await?;
        for (name, cols) in [
            ("poster_created", &["poster_id", "created_at"][..]),
            ("ad_status", &["ad_id", "status"]),
            ("status_decided", &["status", "decided_at"]),
            ("subscription", &["subscription_id"]),
            ("band0", &["band0"]),
            ("band1", &["band1"]),
            ("band2", &["band2"]),
            ("band3", &["band3"]),
            ("band4", &["band4"]),
            ("band5", &["band5"]),
            ("band6", &["band6"]),
            ("band7", &["band7"]),
        ] {
            m.create_index(index(SCREENSHOTS, name, cols)).await?;
        }

        m.create_table(
            Table::create()
                .table(TRANSACTIONS)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(string_uniq("code"))
                .col(string("kind"))
                .col(string("status"))
                .col(big_integer("amount_cents"))
                .col(uuid_null("poster_id"))
                .col(uuid_null("advertiser_id"))
                .col(uuid_null("ad_id"))
                .col(uuid_null("screenshot_id"))
                .col(text("description"))
                .col(string_null("idempotency_key").unique_key())
                .col(timestamp_with_time_zone("created_at"))
                .col(timestamp_with_time_zone("updated_at"))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            TRANSACTIONS,
            "poster_created",
            &["poster_id", "created_at"],
        ))
        .await?;
        m.create_index(index(
            TRANSACTIONS,
            "advertiser_created",
            &["advertiser_id", "created_at"],
        ))
        .await?;

        m.create_table(
            Table::create()
                .table(ENTRIES)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("transaction_id"))
                .col(string("account"))
                .col(big_integer("amount_cents"))
                .col(timestamp_with_time_zone("created_at"))
                .foreign_key(&mut cascade_to(ENTRIES, "transaction_id", TRANSACTIONS))
                .to_owned(),
        )
        .await?;
        m.create_index(index(ENTRIES, "transaction", &["transaction_id"]))
            .await?;
        m.create_index(index(ENTRIES, "account", &["account", "created_at"]))
            .await?;

        m.create_table(
            Table::create()
                .table(BALANCES)
                .if_not_exists()
                .col(string("account").primary_key())
                .col(big_integer("cents"))
                .col(timestamp_with_time_zone("updated_at"))
                .to_owned(),
        )
        .await?;

        m.create_table(
            Table::create()
                .table(WITHDRAWALS)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("poster_id"))
                .col(uuid("transaction_id"))
                .col(big_integer("amount_cents"))
                .col(string("payment_method_id"))
                .col(string("status"))
                .col(string_null("reference"))
                .col(timestamp_with_time_zone_null("processed_at"))
                .col(timestamp_with_time_zone("created_at"))
                .foreign_key(&mut cascade_to(WITHDRAWALS, "transaction_id", TRANSACTIONS))
                .to_owned(),
        )
        .await?;
        m.create_index(index(WITHDRAWALS, "poster", &["poster_id", "created_at"]))
            .await?;
        m.create_index(index(WITHDRAWALS, "status", &["status", "created_at"]))
            .await?;

        m.create_table(
            Table::create()
                .table(TICKETS)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("poster_id"))
                .col(string("subject"))
                .col(string("category"))
                .col(text_null("screenshot_url"))
                .col(string("status"))
                .col(timestamp_with_time_zone_null("closed_at"))
                .col(timestamp_with_time_zone("created_at"))
                .col(timestamp_with_time_zone("updated_at"))
                .foreign_key(&mut cascade_to(TICKETS, "poster_id", POSTERS))
                .to_owned(),
        )
        .await?;
        m.create_index(index(TICKETS, "poster", &["poster_id", "created_at"]))
            .await?;

        m.create_table(
            Table::create()
                .table(TICKET_MESSAGES)
                .if_not_exists()
                .col(pk_uuid("id"))
                .col(uuid("ticket_id"))
                .col(string("author_kind"))
                .col(uuid("author_id"))
                .col(text("body"))
                .col(timestamp_with_time_zone("created_at"))
                .foreign_key(&mut cascade_to(TICKET_MESSAGES, "ticket_id", TICKETS))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            TICKET_MESSAGES,
            "ticket",
            &["ticket_id", "created_at"],
        ))
        .await?;
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            TICKET_MESSAGES,
            TICKETS,
            WITHDRAWALS,
            BALANCES,
            ENTRIES,
            TRANSACTIONS,
            SCREENSHOTS,
            SUBSCRIPTIONS,
            ADS,
            CATEGORIES,
            DEVICE_TOKENS,
            PHONE_GUARDS,
            SESSIONS,
            POSTERS,
        ] {
            m.drop_table(Table::drop().table(table).if_exists().to_owned())
                .await?;
        }
        Ok(())
    }
}
