//! The sandbox provider's checkout page, served by the service: the amount and the ad, Pay
//! and Cancel. Pay makes the event Stripe would send (`checkout.session.completed`, paid),
//! Cancel one that expires the session; each is signed exactly as Stripe signs, with the
//! webhook secret, and handed to the webhook's own handling with the same raw body, then
//! the payer is sent to the success or cancel URL. A paid checkout's page offers what the
//! payer's bank may do later: a refund of some amount (`charge.refunded`, cumulative), a
//! dispute, and its close, won or lost (`charge.dispute.*`).

use super::super::error::Result;
use super::super::state::AdvertisingState;
use super::super::wire::usd;
use super::{payment_not_found, webhook};
use crate::core::markup::escape;
use crate::providers::payments::signature;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use switchboard_entities::advertising::payment::{DisputeStatus, PaymentStatus};
use switchboard_entities::advertising::payment_event::EventKind;
use switchboard_entities::advertising::{ad, payment};

/// The sandbox session `session_id` (only while the sandbox is the provider) and its ad.
pub async fn session(
    st: &AdvertisingState,
    session_id: &str,
) -> Result<(payment::Model, ad::Model)> {
    if st.providers.payments.name() != "sandbox" {
        return Err(payment_not_found());
    }
    let found = payment::Entity::find()
        .filter(payment::Column::SessionId.eq(session_id))
        .filter(payment::Column::Provider.eq("sandbox"))
        .one(&st.core.db)
        .await?;
    super::store::with_ad(st, found).await
}

/// The checkout page.
pub fn page(p: &payment::Model, a: &ad::Model) -> String {
    let session = escape(p.session_id.as_deref().unwrap_or_default());
    let amount = usd(p.amount_cents);
    let action = format!("/api/campaign-payments/sandbox/{session}");
    let body = if p.status == PaymentStatus::Pending {
        format!(
            r#"<form method="post" action="{action}">
<button type="submit" name="action" value="pay" id="pay">Pay ${amount}</button>
<button type="submit" name="action" value="cancel" id="cancel">Cancel</button>
</form>"#
        )
    } else if p.status.took_money() {
        let refunded = usd(p.refunded_cents);
        let dispute = match p.dispute_status {
            Some(DisputeStatus::Open) => format!(
                r#"<p id="dispute">Disputed: ${} held.</p>
<form method="post" action="{action}">
<button type="submit" name="action" value="dispute_won" id="dispute_won">Dispute won</button>
<button type="submit" name="action" value="dispute_lost" id="dispute_lost">Dispute lost</button>
</form>"#,
                usd(p.held_cents)
            ),
            Some(closed) => format!("<p id=\"dispute\">Dispute {}.</p>", escape(closed.as_str())),
            None => format!(
                r#"<form method="post" action="{action}">
<button type="submit" name="action" value="dispute" id="dispute">Dispute</button>
</form>"#
            ),
        };
        format!(
            r#"<p id="status">This checkout is {status}; ${refunded} refunded.</p>
<form method="post" action="{action}">
<label>Refund $<input name="amountUsd" id="amountUsd" inputmode="decimal"></label>
<button type="submit" name="action" value="refund" id="refund">Refund</button>
</form>
{dispute}"#,
            status = escape(p.status.as_str()),
        )
    } else {
        format!(
            "<p id=\"status\">This checkout is {}.</p>",
            escape(p.status.as_str())
        )
    };
    format!(
        r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sandbox checkout</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body>
<h1>Sandbox checkout</h1>
<p>No money moves: this page stands in for the payment provider's.</p>
<p>Ad budget: <strong id="ad">{title}</strong></p>
<p>Amount: <strong id="amount">${amount} USD</strong></p>
{body}
</body></html>"#,
        title = escape(&a.title),
    )
}

/// What the payer (or later, their bank) chose on the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    Pay,
    Cancel,
    /// Refunds this many more cents.
    Refund(i64),
    Dispute,
    DisputeWon,
    DisputeLost,
}

impl Choice {
    /// Whether the choice is open to a checkout in `status` (pending, or paid and after).
    pub fn open_to(self, p: &payment::Model) -> bool {
        let paid = p.status.took_money();
        let open_dispute = p.dispute_status == Some(DisputeStatus::Open);
        match self {
            Self::Pay | Self::Cancel => p.status == PaymentStatus::Pending,
            Self::Refund(_) => paid,
            Self::Dispute => p.status == PaymentStatus::Paid && p.dispute_status.is_none(),
            Self::DisputeWon | Self::DisputeLost => paid && open_dispute,
        }
    }
}

/// The event the provider would send for `choice`, signed; handled by the webhook's code.
pub async fn decide(st: &AdvertisingState, p: &payment::Model, choice: Choice) -> Result<()> {
    let now = st.core.now();
    let session = p.session_id.clone().unwrap_or_default();
    let intent = p
        .payment_intent
        .clone()
        .unwrap_or_else(|| format!("pi_sandbox_{}", p.id.simple()));
    let dispute = |status: &str| {
        serde_json::json!({
            "id": format!("dp_sandbox_{}", p.id.simple()),
            "object": "dispute",
            "amount": p.amount_cents - p.refunded_cents,
            "currency": p.currency,
            "payment_intent": intent,
            "reason": "fraudulent",
            "status": status,
        })
    };
    let (kind, object) = match choice {
        Choice::Pay | Choice::Cancel => {
            let (status, payment_status) = if choice == Choice::Pay {
                ("complete", "paid")
            } else {
                ("expired", "unpaid")
            };
            let kind = if choice == Choice::Pay {
                EventKind::CheckoutCompleted
            } else {
                EventKind::CheckoutExpired
            };
            (
                kind,
                serde_json::json!({
                    "id": session,
                    "object": "checkout.session",
                    "mode": "payment",
                    "status": status,
                    "payment_status": payment_status,
                    "amount_total": p.amount_cents,
                    "currency": p.currency,
                    "payment_intent": (choice == Choice::Pay).then_some(&intent),
                    "client_reference_id": p.id.to_string(),
                    "metadata": {"payment_id": p.id.to_string()},
                }),
            )
        }
        Choice::Refund(cents) => {
            let total = (p.refunded_cents + cents).min(p.amount_cents);
            (
                EventKind::ChargeRefunded,
                serde_json::json!({
                    "id": format!("ch_sandbox_{}", p.id.simple()),
                    "object": "charge",
                    "amount": p.amount_cents,
                    "amount_refunded": total,
                    "refunded": total == p.amount_cents,
                    "currency": p.currency,
                    "payment_intent": intent,
                }),
            )
        }
        Choice::Dispute => (EventKind::DisputeCreated, dispute("needs_response")),
        Choice::DisputeWon => (
            EventKind::DisputeClosed,
            dispute(DisputeStatus::Won.as_str()),
        ),
        Choice::DisputeLost => (
            EventKind::DisputeClosed,
            dispute(DisputeStatus::Lost.as_str()),
        ),
    };
    let event = serde_json::json!({
        "id": format!("evt_sandbox_{}", crate::core::secrets::random_hex(12)),
        "object": "event",
        "type": kind.as_str(),
        "created": now.timestamp(),
        "livemode": false,
        "data": {"object": object},
    });
    let body = serde_json::to_vec(&event).map_err(crate::core::error::ApiError::internal)?;
    let header = signature::header(
        &st.providers.settings.payments.webhook_secret,
        now.timestamp(),
        &body,
    );
    webhook::receive(st, Some(&header), &body).await?;
    Ok(())
}
