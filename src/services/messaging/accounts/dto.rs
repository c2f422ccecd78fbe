//! Wire shapes of the token exchange, the account and its ledger.

use super::super::billing::domain::credits_value;
use crate::core::page::NumberedMeta;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use switchboard_entities::messaging::ledger_entry;
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LedgerQuery {
    /// Only the entries of this message (its debit and, if it failed, its refund).
    pub message_id: Option<Uuid>,
    /// `message` (a debit), `refund` or `grant`.
    #[param(value_type = Option<LedgerReason>, inline)]
    pub reason: Option<String>,
}

/// Why a workspace's balance moved.
#[derive(ToSchema)]
#[expect(dead_code, reason = "an OpenAPI schema only: described, never built")]
#[schema(rename_all = "lowercase")]
pub enum LedgerReason {
    Message,
    Refund,
    Grant,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Account {
    pub workspace_id: Uuid,
    pub name: String,
    #[schema(value_type = f64)]
    pub credits_balance: Value,
    #[schema(value_type = f64)]
    pub low_credit_threshold: Value,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TokenResponse {
    pub access_token: String,
    pub token_type: String,
    pub expires_in: i64,
}

/// One change of the balance; the balance is the sum of all of them.
#[derive(Debug, Serialize, ToSchema)]
pub struct LedgerEntryView {
    pub id: Uuid,
    /// The message charged (`message`) or refunded (`refund`); null for a grant.
    pub message_id: Option<Uuid>,
    /// Credits: negative for a debit, positive for a refund or a grant.
    #[schema(value_type = f64)]
    pub amount: Value,
    #[schema(value_type = LedgerReason)]
    pub reason: String,
    pub created_at: DateTime<Utc>,
}

impl From<ledger_entry::Model> for LedgerEntryView {
    fn from(e: ledger_entry::Model) -> Self {
        Self {
            id: e.id,
            message_id: e.message_id,
            amount: credits_value(e.amount),
            reason: e.reason,
            created_at: e.created_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct LedgerList {
    pub entries: Vec<LedgerEntryView>,
    pub pagination: NumberedMeta,
}
