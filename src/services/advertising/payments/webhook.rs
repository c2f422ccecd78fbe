//! The payment provider's webhook: a Stripe-signed event, handled once per event id, in one
//! database transaction with everything it changes. A completed, paid session funds its ad
//! with the amount fixed on the payment (a ledger deposit), once the session's amount and
//! currency agree with it; expired and failed sessions mark the payment. Refunds and
//! disputes (`refunds`) take money back.

use super::super::ads::store as ads;
use super::super::error::Result;
use super::super::money::ledger::{self, Account, Movement};
use super::super::state::AdvertisingState;
use super::{invoice, refunds};
use crate::core::error::ApiError;
use crate::providers::payments::signature;
use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};
use serde::Deserialize;
use switchboard_entities::advertising::{payment, payment_event};
use uuid::Uuid;

#[derive(Debug, Deserialize)]
struct Event {
    id: String,
    #[serde(rename = "type")]
    kind: String,
    data: EventData,
}

#[derive(Debug, Deserialize)]
struct EventData {
    object: Object,
}

/// The fields the handling reads of an event's object: a Checkout Session, a Charge or a
/// Dispute (what an object does not have parses to None).
#[derive(Debug, Deserialize, Default)]
#[serde(default)]
pub struct Object {
    pub id: Option<String>,
    /// A session's.
    pub amount_total: Option<i64>,
    pub currency: Option<String>,
    pub payment_status: Option<String>,
    pub client_reference_id: Option<String>,
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
    /// An id, or the PaymentIntent object when expanded.
    pub payment_intent: Option<serde_json::Value>,
    /// A charge's refunded total so far.
    pub amount_refunded: Option<i64>,
    /// A dispute's amount.
    pub amount: Option<i64>,
    /// A dispute's: `won`, `lost`, `needs_response`, ...
    pub status: Option<String>,
}

impl Object {
    fn payment_intent(&self) -> Option<&str> {
        match self.payment_intent.as_ref()? {
            serde_json::Value::String(s) => Some(s.as_str()),
            serde_json::Value::Object(o) => o.get("id").and_then(|v| v.as_str()),
            _ => None,
        }
        .filter(|s| !s.is_empty())
    }
}

/// What handling an event did (kept with its id, and answered).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Funded,
    Mismatch,
    Expired,
    Failed,
    /// A completed session still waiting for its money (`payment_status` not `paid`).
    Unpaid,
    /// The payment was settled before (by another event).
    Settled,
    UnknownPayment,
    /// Part or all of a paid payment given back.
    Refunded,
    /// A dispute opened: the ad paused, its free budget held.
    Disputed,
    DisputeWon,
    DisputeLost,
    Ignored,
    /// The event id was handled before: nothing changed.
    Replay,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Funded => "funded",
            Self::Mismatch => "mismatch",
            Self::Expired => "expired",
            Self::Failed => "failed",
            Self::Unpaid => "unpaid",
            Self::Settled => "settled",
            Self::UnknownPayment => "unknown_payment",
            Self::Refunded => "refunded",
            Self::Disputed => "disputed",
            Self::DisputeWon => "dispute_won",
            Self::DisputeLost => "dispute_lost",
            Self::Ignored => "ignored",
            Self::Replay => "replay",
        }
    }
}

fn bad(message: impl std::fmt::Display) -> ApiError {
    ApiError::bad_request(message.to_string()).code("invalid_webhook")
}

/// Verifies and handles one delivery: `signature_header` is `Stripe-Signature`, `body` the
/// raw bytes it signs.
pub async fn receive(
    st: &AdvertisingState,
    signature_header: Option<&str>,
    body: &[u8],
) -> Result<Outcome> {
    let secret = &st.providers.settings.payments.webhook_secret;
    signature::verify(signature_header, body, secret, st.core.now().timestamp()).map_err(bad)?;
    let event: Event = serde_json::from_slice(body).map_err(|e| bad(format!("payload: {e}")))?;
    let now = st.core.now();
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let first = payment_event::Entity::insert(payment_event::ActiveModel {
        event_id: Set(event.id.clone()),
        kind: Set(event.kind.clone()),
        payment_id: Set(None),
        outcome: Set(String::new()),
        received_at: Set(now),
    })
    .on_conflict(
        OnConflict::column(payment_event::Column::EventId)
            .do_nothing()
            .to_owned(),
    )
    .exec_without_returning(&*txn)
    .await?;
    if first == 0 {
        return Ok(Outcome::Replay);
    }
    let found = find_payment(&*txn, &event.kind, &event.data.object).await?;
    let outcome = match (&found, event.kind.as_str()) {
        (_, kind) if !HANDLED.contains(&kind) => Outcome::Ignored,
        (None, _) => Outcome::UnknownPayment,
        (Some(p), "checkout.session.completed" | "checkout.session.async_payment_succeeded") => {
            paid(st, &*txn, p, &event.data.object, now).await?
        }
        (Some(p), "checkout.session.expired") => mark(&*txn, p, "expired", now).await?,
        (Some(p), "checkout.session.async_payment_failed") => mark(&*txn, p, "failed", now).await?,
        (Some(p), "charge.refunded") => {
            refunds::refunded(&*txn, p, &event.data.object, now).await?
        }
        (Some(p), "charge.dispute.created") => {
            refunds::dispute_opened(&*txn, p, &event.data.object, now).await?
        }
        (Some(p), _) => refunds::dispute_closed(&*txn, p, &event.data.object, now).await?,
    };
    payment_event::Entity::update_many()
        .col_expr(
            payment_event::Column::Outcome,
            Expr::value(outcome.as_str()),
        )
        .col_expr(
            payment_event::Column::PaymentId,
            Expr::value(found.as_ref().map(|p| p.id)),
        )
        .filter(payment_event::Column::EventId.eq(event.id.as_str()))
        .exec(&*txn)
        .await?;
    txn.commit().await?;
    if outcome == Outcome::Funded {
        st.core.jobs.wake();
    }
    tracing::info!(event = %event.id, kind = %event.kind, outcome = outcome.as_str(), "payment webhook");
    Ok(outcome)
}

const HANDLED: [&str; 7] = [
    "checkout.session.completed",
    "checkout.session.async_payment_succeeded",
    "checkout.session.expired",
    "checkout.session.async_payment_failed",
    "charge.refunded",
    "charge.dispute.created",
    "charge.dispute.closed",
];

/// The payment an event is about: a charge's or dispute's by its PaymentIntent; a session's
/// by its session id, else by the payment id we gave it.
async fn find_payment(
    db: &impl ConnectionTrait,
    kind: &str,
    s: &Object,
) -> Result<Option<payment::Model>> {
    if kind.starts_with("charge.") {
        let Some(pi) = s.payment_intent() else {
            return Ok(None);
        };
        return Ok(payment::Entity::find()
            .filter(payment::Column::PaymentIntent.eq(pi))
            .one(db)
            .await?);
    }
    if let Some(id) = &s.id {
        let by_session = payment::Entity::find()
            .filter(payment::Column::SessionId.eq(id.as_str()))
            .one(db)
            .await?;
        if by_session.is_some() {
            return Ok(by_session);
        }
    }
    let ours = s
        .metadata
        .as_ref()
        .and_then(|m| m.get("payment_id"))
        .and_then(|v| v.as_str())
        .or(s.client_reference_id.as_deref())
        .and_then(|raw| Uuid::parse_str(raw).ok());
    Ok(match ours {
        Some(id) => payment::Entity::find_by_id(id).one(db).await?,
        None => None,
    })
}

/// Moves a pending payment to `status`; false when it was no longer pending.
async fn settle(
    db: &impl ConnectionTrait,
    p: &payment::Model,
    status: &str,
    problem: Option<String>,
    now: DateTime<Utc>,
) -> Result<bool> {
    let done = payment::Entity::update_many()
        .col_expr(payment::Column::Status, Expr::value(status))
        .col_expr(payment::Column::Problem, Expr::value(problem))
        .col_expr(payment::Column::UpdatedAt, Expr::value(now))
        .filter(payment::Column::Id.eq(p.id))
        .filter(payment::Column::Status.eq("pending"))
        .exec(db)
        .await?;
    Ok(done.rows_affected == 1)
}

async fn mark(
    db: &impl ConnectionTrait,
    p: &payment::Model,
    status: &str,
    now: DateTime<Utc>,
) -> Result<Outcome> {
    Ok(match (settle(db, p, status, None, now).await?, status) {
        (false, _) => Outcome::Settled,
        (true, "expired") => Outcome::Expired,
        (true, _) => Outcome::Failed,
    })
}

/// A completed session: funds the ad when the money is in and matches the payment.
async fn paid(
    st: &AdvertisingState,
    db: &impl ConnectionTrait,
    p: &payment::Model,
    s: &Object,
    now: DateTime<Utc>,
) -> Result<Outcome> {
    if s.payment_status.as_deref() != Some("paid") {
        return Ok(Outcome::Unpaid);
    }
    let currency = s.currency.as_deref().map(str::to_ascii_lowercase);
    if s.amount_total != Some(p.amount_cents) || currency.as_deref() != Some(p.currency.as_str()) {
        let problem = format!(
            "the session charged {:?} {:?}; the payment is {} {}",
            s.amount_total, s.currency, p.amount_cents, p.currency
        );
        tracing::warn!(payment = %p.id, %problem, "payment amount mismatch: nothing funded");
        return Ok(if settle(db, p, "failed", Some(problem), now).await? {
            Outcome::Mismatch
        } else {
            Outcome::Settled
        });
    }
    if !settle(db, p, "paid", None, now).await? {
        return Ok(Outcome::Settled);
    }
    // What the advertiser owes (refunds of money posters had earned) is settled first.
    let owed = -ledger::balance_of(db, &Account::Owed(p.advertiser_id))
        .await?
        .min(0);
    let collected = owed.min(p.amount_cents);
    let to_ad = p.amount_cents - collected;
    let mut legs = vec![(Account::Funding, -p.amount_cents)];
    if collected > 0 {
        legs.push((Account::Owed(p.advertiser_id), collected));
    }
    if to_ad > 0 {
        legs.push((Account::Ad(p.ad_id), to_ad));
    }
    let description = if collected > 0 {
        format!(
            "Ad budget paid by checkout (${} of it settles what the advertiser owed)",
            super::super::wire::usd(collected)
        )
    } else {
        "Ad budget paid by checkout".into()
    };
    let deposit = ledger::post(
        db,
        Movement {
            kind: ledger::DEPOSIT,
            status: "completed",
            amount_cents: p.amount_cents,
            poster_id: None,
            advertiser_id: Some(p.advertiser_id),
            ad_id: Some(p.ad_id),
            screenshot_id: None,
            description,
            idempotency_key: Some(format!("payment:{}", p.id)),
            legs,
        },
        now,
    )
    .await?;
    ads::fund(db, p.ad_id, to_ad, now).await?;
    let a = ads::get_in(db, p.ad_id).await?;
    if a.funded_cents - a.reserved_cents - a.spent_cents >= a.payout_cents {
        ads::resume_paused_for(db, p.ad_id, refunds::REFUND_PAUSE, now).await?;
    }
    payment::Entity::update_many()
        .col_expr(payment::Column::PaidAt, Expr::value(now))
        .col_expr(
            payment::Column::TransactionId,
            Expr::value(deposit.map(|t| t.id)),
        )
        .col_expr(
            payment::Column::PaymentIntent,
            Expr::value(s.payment_intent().map(str::to_owned)),
        )
        .filter(payment::Column::Id.eq(p.id))
        .exec(db)
        .await?;
    invoice::issue(st, db, p, now).await?;
    Ok(Outcome::Funded)
}
