//! Advertisers' wire shapes.

use super::super::posters::dto::present;
use serde::{Deserialize, Serialize};
use switchboard_entities::advertising::advertiser;
use utoipa::ToSchema;

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Signup {
    pub email: Option<String>,
    /// At least 10 characters.
    pub password: Option<String>,
    /// 1 to 120 characters.
    pub company_name: Option<String>,
    /// ISO 3166-1 alpha-2, e.g. `GB`.
    pub country_code: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Login {
    pub email: Option<String>,
    pub password: Option<String>,
}

/// The token from a mailed link.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TokenBody {
    pub token: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ForgotPassword {
    pub email: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ResetPassword {
    /// The token from the mailed link.
    pub token: Option<String>,
    /// The new password: at least 10 characters.
    pub password: Option<String>,
}

/// A profile change: absent keys stay; `null` clears `contactName`, `phone` or `website`.
/// The email cannot be changed here.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateAdvertiserProfile {
    pub company_name: Option<String>,
    pub country_code: Option<String>,
    /// 1 to 80 characters.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub contact_name: Option<Option<String>>,
    /// E.164.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub phone: Option<Option<String>>,
    /// An https URL.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub website: Option<Option<String>>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdvertiserView {
    pub id: String,
    pub email: String,
    pub email_verified: bool,
    pub company_name: String,
    pub country_code: String,
    pub contact_name: Option<String>,
    pub phone: Option<String>,
    pub website: Option<String>,
    pub created_at: chrono::DateTime<chrono::Utc>,
}

impl From<&advertiser::Model> for AdvertiserView {
    fn from(a: &advertiser::Model) -> Self {
        Self {
            id: a.id.to_string(),
            email: a.email.clone(),
            email_verified: a.email_verified_at.is_some(),
            company_name: a.company_name.clone(),
            country_code: a.country_code.clone(),
            contact_name: a.contact_name.clone(),
            phone: a.phone.clone(),
            website: a.website.clone(),
            created_at: a.created_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct AdvertiserData {
    pub advertiser: AdvertiserView,
}

#[derive(Serialize, ToSchema)]
pub struct AdvertiserSignedIn {
    /// A bearer token (`Authorization: Bearer …`).
    pub token: String,
    pub advertiser: AdvertiserView,
}

#[derive(Serialize, ToSchema)]
pub struct Message {
    pub message: String,
}

/// The advertiser's money over all their ads (`…Cents` and `…Usd`).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdvertiserBalanceView {
    /// Paid into their ads (funded), deleted ones included.
    pub deposits_cents: i64,
    pub deposits_usd: String,
    /// Paid out for approved screenshots.
    pub spent_cents: i64,
    pub spent_usd: String,
    /// Held for screenshots awaiting a decision.
    pub reserved_cents: i64,
    pub reserved_usd: String,
    /// Funded budget of deleted ads neither spent nor reserved.
    pub unspent_deleted_cents: i64,
    pub unspent_deleted_usd: String,
    /// Given back to the payer: refunds and lost disputes (no longer in `deposits`).
    pub refunded_cents: i64,
    pub refunded_usd: String,
    /// Held from their ads while payments are disputed (no longer in `deposits`).
    pub disputed_cents: i64,
    pub disputed_usd: String,
    /// What they owe: money taken back that posters had already earned. Their next
    /// payment settles it first.
    pub owed_cents: i64,
    pub owed_usd: String,
}
