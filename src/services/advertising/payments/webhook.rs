//! The payment provider's webhook: a Stripe-signed event, handled once per event id, in one
//! database transaction with everything it changes. A completed, paid session funds its ad
//! with the amount fixed on the payment (a ledger deposit), once the session's amount and
//! currency agree with it; expired and failed sessions mark the payment. Refunds and
//! disputes (`refunds`) take money back.

use super::super::ads::store as ads;
use super::super::error::Result;
use super::super::money::ledger::{self, Account, Movement, TransactionKind, TransactionStatus};
use super::super::state::AdvertisingState;
use super::event::{Event, Object, Outcome};
use super::{invoice, refunds};
use crate::core::error::ApiError;
use crate::providers::payments::signature;
use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};
use switchboard_entities::advertising::payment::PaymentStatus;
use switchboard_entities::advertising::payment_event::EventKind;
use switchboard_entities::advertising::{payment, payment_event};
use uuid::Uuid;

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
    let kind = EventKind::parse(&event.kind);
    let now = st.core.now();
    let txn = crate::core::db::begin_write(&st.core.db).await?;
    let first = payment_event::Entity::insert(payment_event::ActiveModel {
        event_id: Set(event.id.clone()),
        kind: Set(kind.clone()),
        payment_id: Set(None),
        outcome: Set(Outcome::Handling),
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
    let found = find_payment(&*txn, &kind, &event.data.object).await?;
    let outcome = match (&found, &kind) {
        (_, EventKind::Other(_)) => Outcome::Ignored,
        (None, _) => Outcome::UnknownPayment,
        (Some(p), EventKind::CheckoutCompleted | EventKind::AsyncPaymentSucceeded) => {
            paid(st, &*txn, p, &event.data.object, now).await?
        }
        (Some(p), EventKind::CheckoutExpired) => {
            mark(&*txn, p, PaymentStatus::Expired, now).await?
        }
        (Some(p), EventKind::AsyncPaymentFailed) => {
            mark(&*txn, p, PaymentStatus::Failed, now).await?
        }
        (Some(p), EventKind::ChargeRefunded) => {
            refunds::refunded(&*txn, p, &event.data.object, now).await?
        }
        (Some(p), EventKind::DisputeCreated) => {
            refunds::dispute_opened(&*txn, p, &event.data.object, now).await?
        }
        (Some(p), EventKind::DisputeClosed) => {
            refunds::dispute_closed(&*txn, p, &event.data.object, now).await?
        }
    };
    payment_event::Entity::update_many()
        .col_expr(payment_event::Column::Outcome, Expr::value(outcome))
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

/// The payment an event is about: a charge's or dispute's by its PaymentIntent; a session's
/// by its session id, else by the payment id we gave it.
async fn find_payment(
    db: &impl ConnectionTrait,
    kind: &EventKind,
    s: &Object,
) -> Result<Option<payment::Model>> {
    if kind.is_charge() {
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
    status: PaymentStatus,
    problem: Option<String>,
    now: DateTime<Utc>,
) -> Result<bool> {
    debug_assert!(PaymentStatus::Pending.can_move_to(status), "{status}");
    let done = payment::Entity::update_many()
        .col_expr(payment::Column::Status, Expr::value(status))
        .col_expr(payment::Column::Problem, Expr::value(problem))
        .col_expr(payment::Column::UpdatedAt, Expr::value(now))
        .filter(payment::Column::Id.eq(p.id))
        .filter(payment::Column::Status.eq(PaymentStatus::Pending))
        .exec(db)
        .await?;
    Ok(done.rows_affected == 1)
}

async fn mark(
    db: &impl ConnectionTrait,
    p: &payment::Model,
    status: PaymentStatus,
    now: DateTime<Utc>,
) -> Result<Outcome> {
    Ok(match (settle(db, p, status, None, now).await?, status) {
        (false, _) => Outcome::Settled,
        (true, PaymentStatus::Expired) => Outcome::Expired,
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
        return Ok(
            if settle(db, p, PaymentStatus::Failed, Some(problem), now).await? {
                Outcome::Mismatch
            } else {
                Outcome::Settled
            },
        );
    }
    if !settle(db, p, PaymentStatus::Paid, None, now).await? {
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
            kind: TransactionKind::Deposit,
            status: TransactionStatus::Completed,
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
