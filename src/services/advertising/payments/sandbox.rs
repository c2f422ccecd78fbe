//! The sandbox provider's checkout page, served by the service: the amount and the ad, Pay
//! and Cancel. Pay makes the event Stripe would send (`checkout.session.completed`, paid),
//! Cancel one that expires the session; each is signed exactly as Stripe signs, with the
//! webhook secret, and handed to the webhook's own handling with the same raw body, then
//! the payer is sent to the success or cancel URL.

use super::super::error::Result;
use super::super::state::AdvertisingState;
use super::super::wire::usd;
use super::{payment_not_found, webhook};
use crate::providers::payments::signature;
use crate::providers::voice::xml_escape as escape;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
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
    let body = if p.status == "pending" {
        format!(
            r#"<form method="post" action="/api/campaign-payments/sandbox/{session}">
<button type="submit" name="action" value="pay" id="pay">Pay ${amount}</button>
<button type="submit" name="action" value="cancel" id="cancel">Cancel</button>
</form>"#
        )
    } else {
        format!(
            "<p id=\"status\">This checkout is {}.</p>",
            escape(&p.status)
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

/// What the payer chose on the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    Pay,
    Cancel,
}

/// The event the provider would send for `choice`, signed; handled by the webhook's code.
pub async fn decide(st: &AdvertisingState, p: &payment::Model, choice: Choice) -> Result<()> {
    let now = st.core.now();
    let session = p.session_id.clone().unwrap_or_default();
    let (kind, status, payment_status) = match choice {
        Choice::Pay => ("checkout.session.completed", "complete", "paid"),
        Choice::Cancel => ("checkout.session.expired", "expired", "unpaid"),
    };
    let event = serde_json::json!({
        "id": format!("evt_sandbox_{}", crate::core::secrets::random_hex(12)),
        "object": "event",
        "type": kind,
        "created": now.timestamp(),
        "livemode": false,
        "data": {"object": {
            "id": session,
            "object": "checkout.session",
            "mode": "payment",
            "status": status,
            "payment_status": payment_status,
            "amount_total": p.amount_cents,
            "currency": p.currency,
            "client_reference_id": p.id.to_string(),
            "metadata": {"payment_id": p.id.to_string()},
        }},
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
