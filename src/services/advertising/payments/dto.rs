//! Payments' wire shapes: amounts as `…Cents` and `…Usd`.

use super::super::wire::usd;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use switchboard_entities::advertising::payment::PaymentStatus;
use switchboard_entities::advertising::{ad, invoice, payment};
use utoipa::ToSchema;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateCheckout {
    pub ad_id: Option<String>,
    /// Where the payer lands after paying (http or https).
    pub success_url: Option<String>,
    /// Where the payer lands after cancelling (http or https).
    pub cancel_url: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CheckoutView {
    pub payment_id: uuid::Uuid,
    pub session_id: String,
    /// The checkout page to send the payer to.
    pub url: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PaymentAd {
    pub id: uuid::Uuid,
    pub title: String,
    pub status: String,
    pub budget_cents: i64,
    pub budget_usd: String,
    pub funded_cents: i64,
    pub funded_usd: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PaymentView {
    pub payment_id: uuid::Uuid,
    pub session_id: Option<String>,
    /// The provider's PaymentIntent, once paid: what its refunds and disputes name.
    pub payment_intent: Option<String>,
    /// `pending`, `paid`, `refunded` (all of it), `failed` or `expired`.
    pub status: String,
    pub amount_cents: i64,
    pub amount_usd: String,
    /// Given back so far: refunds and a lost dispute.
    pub refunded_cents: i64,
    pub refunded_usd: String,
    /// `open`, `won` or `lost`; absent when never disputed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dispute_status: Option<String>,
    /// What an open dispute holds of the ad's budget.
    pub held_cents: i64,
    pub held_usd: String,
    pub currency: String,
    /// Why a completed checkout funded nothing.
    pub problem: Option<String>,
    pub url: Option<String>,
    pub ad: PaymentAd,
    pub created_at: DateTime<Utc>,
    pub paid_at: Option<DateTime<Utc>>,
}

impl PaymentView {
    pub fn new(p: &payment::Model, a: &ad::Model) -> Self {
        Self {
            payment_id: p.id,
            session_id: p.session_id.clone(),
            payment_intent: p.payment_intent.clone(),
            status: p.status.as_str().to_owned(),
            amount_cents: p.amount_cents,
            amount_usd: usd(p.amount_cents),
            refunded_cents: p.refunded_cents,
            refunded_usd: usd(p.refunded_cents),
            dispute_status: p.dispute_status.map(|d| d.as_str().to_owned()),
            held_cents: p.held_cents,
            held_usd: usd(p.held_cents),
            currency: p.currency.clone(),
            problem: p.problem.clone(),
            url: p
                .checkout_url
                .clone()
                .filter(|_| p.status == PaymentStatus::Pending),
            ad: PaymentAd {
                id: a.id,
                title: a.title.clone(),
                status: a.status.as_str().to_owned(),
                budget_cents: a.budget_cents,
                budget_usd: usd(a.budget_cents),
                funded_cents: a.funded_cents,
                funded_usd: usd(a.funded_cents),
            },
            created_at: p.created_at,
            paid_at: p.paid_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InvoiceView {
    pub id: uuid::Uuid,
    pub number: String,
    pub payment_id: uuid::Uuid,
    pub ad_id: uuid::Uuid,
    pub amount_cents: i64,
    pub amount_usd: String,
    pub currency: String,
    pub issued_at: DateTime<Utc>,
    /// Where the PDF is downloaded (with the advertiser's token).
    pub pdf_path: String,
}

impl From<&invoice::Model> for InvoiceView {
    fn from(i: &invoice::Model) -> Self {
        Self {
            id: i.id,
            number: i.number.clone(),
            payment_id: i.payment_id,
            ad_id: i.ad_id,
            amount_cents: i.amount_cents,
            amount_usd: usd(i.amount_cents),
            currency: i.currency.clone(),
            issued_at: i.issued_at,
            pdf_path: format!("/advertisers/invoices/{}/pdf", i.id),
        }
    }
}
