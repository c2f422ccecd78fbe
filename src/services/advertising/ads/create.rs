//! Ads an operator makes (`switchboard admin create-ad`) until advertisers come: approved at
//! once and funded with their whole budget by a `deposit` from outside, so posters can earn
//! from them straight away.

use super::super::money::ledger::{self, Account, Movement, TransactionKind, TransactionStatus};
use chrono::{DateTime, Utc};
use sea_orm::{ActiveModelTrait, DatabaseConnection, DbErr, EntityTrait, Set};
use switchboard_entities::advertising::ad::AdStatus;
use switchboard_entities::advertising::{ad, category};
use uuid::Uuid;

/// What went wrong making an ad, for the operator.
#[derive(Debug, thiserror::Error)]
pub enum CreateAdError {
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Db(#[from] DbErr),
    #[error("{0}")]
    Other(String),
}

pub struct NewAd {
    pub title: String,
    pub description: Option<String>,
    /// A country's alpha-2 or alpha-3 code.
    pub country: String,
    /// A storage key or an https URL.
    pub video_source: String,
    pub payout_usd: String,
    pub budget_usd: String,
    /// A category's name or id.
    pub category: Option<String>,
}

fn dollars(field: &'static str, raw: &str) -> Result<i64, CreateAdError> {
    super::super::wire::parse_usd(field, &serde_json::Value::String(raw.to_owned()))
        .map(|c| c.0)
        .map_err(|e| CreateAdError::Invalid(e.to_string()))
}

/// Makes an approved ad funded with its budget; answers it.
pub async fn create_approved(
    db: &DatabaseConnection,
    now: DateTime<Utc>,
    new: NewAd,
) -> Result<ad::Model, CreateAdError> {
    let title = new.title.trim();
    if !(1..=120).contains(&title.chars().count()) {
        return Err(CreateAdError::Invalid(
            "--title must be 1 to 120 characters".into(),
        ));
    }
    let country = super::super::places::data::country(&new.country)
        .ok_or_else(|| CreateAdError::Invalid(format!("unknown country {:?}", new.country)))?;
    let payout = dollars("payout-usd", &new.payout_usd)?;
    let budget = dollars("budget-usd", &new.budget_usd)?;
    if budget < payout {
        return Err(CreateAdError::Invalid(
            "--budget-usd must cover at least one payout".into(),
        ));
    }
    let category = match new.category.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(name) => {
            let all = category::Entity::find().all(db).await?;
            let found = all
                .into_iter()
                .find(|c| c.name.eq_ignore_ascii_case(name) || c.id.eq_ignore_ascii_case(name));
            Some(
                found
                    .ok_or_else(|| CreateAdError::Invalid(format!("unknown category {name:?}")))?
                    .id,
            )
        }
    };
    let txn = crate::core::db::begin_write(db).await?;
    let id = Uuid::new_v4();
    let row = ad::ActiveModel {
        id: Set(id),
        advertiser_id: Set(None),
        title: Set(title.to_owned()),
        description: Set(new
            .description
            .map(|d| d.trim().to_owned())
            .filter(|d| !d.is_empty())),
        category_id: Set(category),
        country: Set(country.alpha2.to_string()),
        video_source: Set(new.video_source),
        payout_cents: Set(payout),
        budget_cents: Set(budget),
        funded_cents: Set(budget),
        reserved_cents: Set(0),
        spent_cents: Set(0),
        status: Set(AdStatus::Approved),
        status_reason: Set(None),
        listed: Set(true),
        demographics: Set(None),
        video_status: Set(None),
        video_error: Set(None),
        video_key: Set(None),
        thumbnail_key: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&*txn)
    .await?;
    ledger::post(
        &*txn,
        Movement {
            kind: TransactionKind::Deposit,
            status: TransactionStatus::Completed,
            amount_cents: budget,
            poster_id: None,
            advertiser_id: None,
            ad_id: Some(id),
            screenshot_id: None,
            description: "Budget granted by an operator".into(),
            idempotency_key: Some(format!("grant:{id}")),
            legs: vec![(Account::Funding, -budget), (Account::Ad(id), budget)],
        },
        now,
    )
    .await
    .map_err(|e| CreateAdError::Other(e.to_string()))?;
    txn.commit().await?;
    Ok(row)
}
