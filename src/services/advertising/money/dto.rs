//! Money's wire shapes: every amount as `…Cents` and `…Usd`.

use super::super::wire::usd;
use serde::{Deserialize, Serialize};
use switchboard_entities::advertising::{transaction, withdrawal};
use utoipa::{IntoParams, ToSchema};

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BalanceView {
    pub available_cents: i64,
    pub available_usd: String,
    /// Held by withdrawals not yet processed.
    pub pending_cents: i64,
    pub pending_usd: String,
    /// Payouts reserved for screenshots not yet decided.
    pub under_review_cents: i64,
    pub under_review_usd: String,
    /// Every approved earning.
    pub lifetime_cents: i64,
    pub lifetime_usd: String,
}

impl From<super::store::Balance> for BalanceView {
    fn from(b: super::store::Balance) -> Self {
        Self {
            available_cents: b.available,
            available_usd: usd(b.available),
            pending_cents: b.pending,
            pending_usd: usd(b.pending),
            under_review_cents: b.under_review,
            under_review_usd: usd(b.under_review),
            lifetime_cents: b.lifetime,
            lifetime_usd: usd(b.lifetime),
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PendingAmount {
    pub pending_cents: i64,
    pub pending_usd: String,
    pub under_review_cents: i64,
    pub under_review_usd: String,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TransactionsQuery {
    #[param(minimum = 1)]
    pub page: Option<u64>,
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u64>,
    /// `earning`, `withdrawal` or `deposit`.
    #[serde(rename = "type")]
    #[param(rename = "type")]
    pub kind: Option<String>,
    /// `pending`, `completed` or `cancelled`.
    pub status: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TransactionView {
    /// Readable and unique, e.g. `TX-7K3M9Q2P`.
    pub code: String,
    #[serde(rename = "type")]
    pub kind: String,
    /// `pending`, `completed` or `cancelled`.
    pub status: String,
    pub amount_cents: i64,
    pub amount_usd: String,
    pub description: String,
    pub ad_id: Option<String>,
    pub screenshot_id: Option<String>,
    pub created_at: chrono::DateTime<chrono::Utc>,
    pub updated_at: chrono::DateTime<chrono::Utc>,
}

impl From<&transaction::Model> for TransactionView {
    fn from(t: &transaction::Model) -> Self {
        Self {
            code: t.code.clone(),
            kind: t.kind.as_str().to_owned(),
            status: t.status.as_str().to_owned(),
            amount_cents: t.amount_cents,
            amount_usd: usd(t.amount_cents),
            description: t.description.clone(),
            ad_id: t.ad_id.map(|i| i.to_string()),
            screenshot_id: t.screenshot_id.map(|i| i.to_string()),
            created_at: t.created_at,
            updated_at: t.updated_at,
        }
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WithdrawRequest {
    /// Dollars, more than 0, at most two decimal places.
    #[schema(value_type = f64)]
    pub amount: Option<serde_json::Value>,
    /// Where to pay (opaque to the platform), 1 to 128 characters.
    pub payment_method_id: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WithdrawalView {
    pub id: String,
    pub status: String,
    pub amount_cents: i64,
    pub amount_usd: String,
    pub payment_method_id: String,
    pub transaction: TransactionView,
    pub created_at: chrono::DateTime<chrono::Utc>,
}

impl WithdrawalView {
    pub fn new(w: &withdrawal::Model, t: &transaction::Model) -> Self {
        Self {
            id: w.id.to_string(),
            status: w.status.as_str().to_owned(),
            amount_cents: w.amount_cents,
            amount_usd: usd(w.amount_cents),
            payment_method_id: w.payment_method_id.clone(),
            transaction: TransactionView::from(t),
            created_at: w.created_at,
        }
    }
}
