//! Money the payer takes back, as Stripe reports it: `charge.refunded` (full or partial, by
//! the charge's cumulative `amount_refunded`), `charge.dispute.created` and
//! `charge.dispute.closed` (`won` or `lost`), each matched to its payment by PaymentIntent
//! and handled inside the webhook's transaction.
//!
//! What comes back is taken, in order, from what a dispute holds of the payment, then from
//! the ad's free budget (funded − reserved − spent); what posters already earned or hold
//! reserved cannot be taken back from them, so the rest becomes the advertiser's debt (the
//! `Owed` ledger account, settled first by their next payment). An ad whose free budget no
//! longer covers a payout is paused for it; a dispute pauses its ad and holds its free
//! budget (up to the disputed amount) until it closes: won releases the hold, lost is a
//! refund of the disputed amount.

use super::super::ads::store as ads;
use super::super::error::Result;
use super::super::money::ledger::{self, Account, Movement, TransactionKind, TransactionStatus};
use super::event::{Object, Outcome};
use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};
use switchboard_entities::advertising::ad::AdStatus;
use switchboard_entities::advertising::payment::{DisputeStatus, PaymentStatus};
use switchboard_entities::advertising::{ad, payment};

/// Why an ad was paused for its money: kept as its `statusReason`, and what lets the ad
/// come back by itself (a pause of the advertiser's or staff's own stays).
pub const REFUND_PAUSE: &str = "paused: the payment for this ad was refunded";
pub const DISPUTE_PAUSE: &str = "paused: the payment for this ad is disputed";

/// Tries of a write that raced another (a payout reserved between the read and the write).
const RACE_TRIES: usize = 8;

/// `charge.refunded`: the newly refunded part (the cumulative amount less what was refunded
/// before), once; an older or repeated total changes nothing.
pub async fn refunded(
    db: &impl ConnectionTrait,
    p: &payment::Model,
    charge: &Object,
    now: DateTime<Utc>,
) -> Result<Outcome> {
    if !p.status.took_money() {
        return Ok(Outcome::Ignored);
    }
    let Some(total) = charge.amount_refunded else {
        return Ok(Outcome::Ignored);
    };
    let total = total.clamp(0, p.amount_cents);
    for _ in 0..RACE_TRIES {
        let Some(now_p) = payment::Entity::find_by_id(p.id).one(db).await? else {
            return Ok(Outcome::UnknownPayment);
        };
        let delta = total - now_p.refunded_cents;
        if delta <= 0 {
            return Ok(Outcome::Settled);
        }
        if !count_refunded(db, &now_p, total, now).await? {
            continue;
        }
        take_back(
            db,
            &now_p,
            delta,
            Reason {
                kind: TransactionKind::Refund,
                key: format!("refund:{}:{total}", p.id),
                description: format!("Refund of {} of the ad's payment", cents(delta)),
            },
            now,
        )
        .await?;
        return Ok(Outcome::Refunded);
    }
    Err(raced())
}

/// `charge.dispute.created`: pauses the ad and holds its free budget, up to the disputed
/// amount, until the dispute closes.
pub async fn dispute_opened(
    db: &impl ConnectionTrait,
    p: &payment::Model,
    dispute: &Object,
    now: DateTime<Utc>,
) -> Result<Outcome> {
    if p.dispute_status == Some(DisputeStatus::Open) || p.status != PaymentStatus::Paid {
        return Ok(Outcome::Settled);
    }
    let disputed = disputed_amount(p, dispute);
    for _ in 0..RACE_TRIES {
        let a = the_ad(db, p).await?;
        let hold = disputed.min(free(&a));
        if hold > 0 && !ads::take_free(db, a.id, hold, now).await? {
            continue;
        }
        let claimed = payment::Entity::update_many()
            .col_expr(
                payment::Column::DisputeStatus,
                Expr::value(DisputeStatus::Open),
            )
            .col_expr(payment::Column::DisputeId, Expr::value(dispute.id.clone()))
            .col_expr(payment::Column::HeldCents, Expr::value(hold))
            .col_expr(payment::Column::UpdatedAt, Expr::value(now))
            .filter(payment::Column::Id.eq(p.id))
            .filter(
                sea_orm::Condition::any()
                    .add(payment::Column::DisputeStatus.is_null())
                    .add(payment::Column::DisputeStatus.ne(DisputeStatus::Open)),
            )
            .exec(db)
            .await?;
        if claimed.rows_affected != 1 {
            return Ok(Outcome::Settled);
        }
        if hold > 0 {
            post(
                db,
                p,
                (TransactionKind::Dispute, TransactionStatus::Pending, hold),
                format!("{} held while the payment is disputed", cents(hold)),
                format!("dispute:{}:{}:hold", p.id, dispute_key(dispute)),
                vec![(Account::Ad(p.ad_id), -hold), (Account::Held(p.id), hold)],
                now,
            )
            .await?;
        }
        ads::set_status(
            db,
            p.ad_id,
            &[AdStatus::Approved],
            AdStatus::Paused,
            Some(DISPUTE_PAUSE.into()),
            now,
        )
        .await?;
        return Ok(Outcome::Disputed);
    }
    Err(raced())
}

/// `charge.dispute.closed`: `won` (or a closed inquiry) gives the hold back to the ad and
/// brings it back; `lost` takes the disputed amount back as a refund would.
pub async fn dispute_closed(
    db: &impl ConnectionTrait,
    p: &payment::Model,
    dispute: &Object,
    now: DateTime<Utc>,
) -> Result<Outcome> {
    if p.dispute_status != Some(DisputeStatus::Open) {
        return Ok(Outcome::Settled);
    }
    // The provider's word for a lost dispute is ours; anything else (won, a closed
    // inquiry) gives the hold back.
    let lost =
        dispute.status.as_deref().and_then(DisputeStatus::parse) == Some(DisputeStatus::Lost);
    let closed = payment::Entity::update_many()
        .col_expr(
            payment::Column::DisputeStatus,
            Expr::value(if lost {
                DisputeStatus::Lost
            } else {
                DisputeStatus::Won
            }),
        )
        .col_expr(payment::Column::HeldCents, Expr::value(0))
        .col_expr(payment::Column::UpdatedAt, Expr::value(now))
        .filter(payment::Column::Id.eq(p.id))
        .filter(payment::Column::DisputeStatus.eq(DisputeStatus::Open))
        .filter(payment::Column::HeldCents.eq(p.held_cents))
        .exec(db)
        .await?;
    if closed.rows_affected != 1 {
        return Ok(Outcome::Settled);
    }
    let key = dispute_key(dispute);
    if !lost {
        if p.held_cents > 0 {
            post(
                db,
                p,
                (
                    TransactionKind::Dispute,
                    TransactionStatus::Completed,
                    p.held_cents,
                ),
                format!("{} released: the dispute was won", cents(p.held_cents)),
                format!("dispute:{}:{key}:release", p.id),
                vec![
                    (Account::Held(p.id), -p.held_cents),
                    (Account::Ad(p.ad_id), p.held_cents),
                ],
                now,
            )
            .await?;
            ads::fund(db, p.ad_id, p.held_cents, now).await?;
        }
        ads::resume_paused_for(db, p.ad_id, DISPUTE_PAUSE, now).await?;
        return Ok(Outcome::DisputeWon);
    }
    let disputed = disputed_amount(p, dispute);
    let total = p.refunded_cents + disputed;
    if !count_refunded(db, p, total, now).await? {
        return Err(raced());
    }
    // The hold goes first: the closing update zeroed the column, the ledger still has it.
    let held = Held(p.held_cents);
    take_back_with(
        db,
        p,
        disputed,
        held,
        Reason {
            kind: TransactionKind::Refund,
            key: format!("dispute:{}:{key}:lost", p.id),
            description: format!("Dispute lost: {} returned to the payer", cents(disputed)),
        },
        now,
    )
    .await?;
    // Paused for the dispute; now paused (or not) for what the refund left.
    if ads::resume_paused_for(db, p.ad_id, DISPUTE_PAUSE, now).await? {
        pause_if_short(db, p, now).await?;
    }
    Ok(Outcome::DisputeLost)
}

/// Posts one movement of `p`'s money (kind, status, cents, description, once by `key`).
async fn post(
    db: &impl ConnectionTrait,
    p: &payment::Model,
    what: (TransactionKind, TransactionStatus, i64),
    description: String,
    key: String,
    legs: Vec<(Account, i64)>,
    now: DateTime<Utc>,
) -> Result<()> {
    let (kind, status, amount_cents) = what;
    ledger::post(
        db,
        Movement {
            kind,
            status,
            amount_cents,
            poster_id: None,
            advertiser_id: Some(p.advertiser_id),
            ad_id: Some(p.ad_id),
            screenshot_id: None,
            description,
            idempotency_key: Some(key),
            legs,
        },
        now,
    )
    .await?;
    Ok(())
}

/// The ledger's record of what is taken back, once (by `key`).
struct Reason {
    kind: TransactionKind,
    key: String,
    description: String,
}

/// What a dispute holds of the payment, to be taken back first.
#[derive(Clone, Copy)]
struct Held(i64);

/// Marks `total` refunded on the payment if nothing moved it since it was read; a full
/// refund makes it `refunded`.
async fn count_refunded(
    db: &impl ConnectionTrait,
    p: &payment::Model,
    total: i64,
    now: DateTime<Utc>,
) -> Result<bool> {
    let status = if total >= p.amount_cents {
        PaymentStatus::Refunded
    } else {
        PaymentStatus::Paid
    };
    let done = payment::Entity::update_many()
        .col_expr(payment::Column::RefundedCents, Expr::value(total))
        .col_expr(payment::Column::Status, Expr::value(status))
        .col_expr(payment::Column::UpdatedAt, Expr::value(now))
        .filter(payment::Column::Id.eq(p.id))
        .filter(payment::Column::RefundedCents.eq(p.refunded_cents))
        .exec(db)
        .await?;
    Ok(done.rows_affected == 1)
}

async fn take_back(
    db: &impl ConnectionTrait,
    p: &payment::Model,
    cents: i64,
    why: Reason,
    now: DateTime<Utc>,
) -> Result<()> {
    // A refund during a dispute (providers refuse one, but a dashboard may not) takes from
    // the hold first too, and what is left of it stays held.
    let held = Held(p.held_cents.min(cents));
    if held.0 > 0 {
        payment::Entity::update_many()
            .col_expr(
                payment::Column::HeldCents,
                Expr::cust(format!("held_cents - {}", held.0)),
            )
            .filter(payment::Column::Id.eq(p.id))
            .exec(db)
            .await?;
    }
    take_back_with(db, p, cents, held, why, now).await?;
    pause_if_short(db, p, now).await
}

/// Posts the movement taking `cents` back: from `held`, then the ad's free budget, the rest
/// owed by the advertiser.
async fn take_back_with(
    db: &impl ConnectionTrait,
    p: &payment::Model,
    cents: i64,
    held: Held,
    why: Reason,
    now: DateTime<Utc>,
) -> Result<()> {
    let from_hold = held.0.min(cents);
    for _ in 0..RACE_TRIES {
        let a = the_ad(db, p).await?;
        let from_ad = (cents - from_hold).min(free(&a));
        if from_ad > 0 && !ads::take_free(db, a.id, from_ad, now).await? {
            continue;
        }
        let owed = cents - from_hold - from_ad;
        let mut legs = vec![(Account::Funding, cents)];
        if from_hold > 0 {
            legs.push((Account::Held(p.id), -from_hold));
        }
        if from_ad > 0 {
            legs.push((Account::Ad(p.ad_id), -from_ad));
        }
        if owed > 0 {
            legs.push((Account::Owed(p.advertiser_id), -owed));
            tracing::warn!(payment = %p.id, advertiser = %p.advertiser_id, owed_cents = owed,
                "money taken back that posters already earned: the advertiser owes it");
        }
        post(
            db,
            p,
            (why.kind, TransactionStatus::Completed, cents),
            why.description,
            why.key,
            legs,
            now,
        )
        .await?;
        return Ok(());
    }
    Err(raced())
}

/// Pauses an approved ad whose free budget no longer covers one payout.
async fn pause_if_short(
    db: &impl ConnectionTrait,
    p: &payment::Model,
    now: DateTime<Utc>,
) -> Result<()> {
    let a = the_ad(db, p).await?;
    if a.status == AdStatus::Approved && free(&a) < a.payout_cents {
        ads::set_status(
            db,
            a.id,
            &[AdStatus::Approved],
            AdStatus::Paused,
            Some(REFUND_PAUSE.into()),
            now,
        )
        .await?;
    }
    Ok(())
}

async fn the_ad(db: &impl ConnectionTrait, p: &payment::Model) -> Result<ad::Model> {
    ads::get_in(db, p.ad_id).await
}

fn free(a: &ad::Model) -> i64 {
    (a.funded_cents - a.reserved_cents - a.spent_cents).max(0)
}

/// What a dispute takes: its amount, at most what is not refunded yet.
fn disputed_amount(p: &payment::Model, dispute: &Object) -> i64 {
    dispute
        .amount
        .unwrap_or(p.amount_cents)
        .clamp(0, p.amount_cents - p.refunded_cents)
}

/// A dispute's id, or a stand-in for an event that names none (one dispute per payment).
fn dispute_key(d: &Object) -> String {
    d.id.clone().unwrap_or_else(|| "dispute".into())
}

fn cents(c: i64) -> String {
    format!("${}", super::super::wire::usd(c))
}

fn raced() -> crate::core::error::ApiError {
    crate::core::error::ApiError::new(
        crate::core::error::Kind::Unavailable,
        "the payment is being changed by another event; the provider will retry",
    )
    .code("payment_busy")
}
