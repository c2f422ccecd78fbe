//! Payments' rows: one pending checkout per ad (a partial unique index keeps racing calls
//! to one), found by its id or its provider session id.

use super::super::error::{AdvertisingError, Record, Result};
use super::super::state::AdvertisingState;
use super::{payment_not_found, CURRENCY};
use crate::core::error::ApiError;
use crate::providers::payments::CheckoutRequest;
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set, SqlErr};
use std::time::Duration;
use switchboard_entities::advertising::ad::AdStatus;
use switchboard_entities::advertising::payment::PaymentStatus;
use switchboard_entities::advertising::{ad, payment};
use uuid::Uuid;

/// How long a call waits for a racing call to finish asking the provider for its session.
const RACE_WAIT: Duration = Duration::from_secs(5);

/// What a checkout is for and where the payer goes after.
pub struct NewCheckout<'a> {
    pub advertiser: Uuid,
    pub ad: ad::Model,
    pub success_url: String,
    pub cancel_url: String,
    pub origin: &'a str,
}

/// The ad's pending checkout (its session known), or a new one charging the ad's unfunded
/// budget.
pub async fn checkout(st: &AdvertisingState, new: NewCheckout<'_>) -> Result<payment::Model> {
    if let Some(p) = pending_with_session(st, new.ad.id).await? {
        return Ok(p);
    }
    let amount = new.ad.budget_cents - new.ad.funded_cents;
    if amount <= 0 {
        return Err(ApiError::bad_request(
            "this ad's budget is already funded; nothing is left to pay",
        )
        .code("nothing_to_fund"));
    }
    let now = st.core.now();
    let id = Uuid::new_v4();
    let row = payment::ActiveModel {
        id: Set(id),
        advertiser_id: Set(new.advertiser),
        ad_id: Set(new.ad.id),
        provider: Set(st.providers.payments.name().into()),
        session_id: Set(None),
        checkout_url: Set(None),
        status: Set(PaymentStatus::Pending),
        amount_cents: Set(amount),
        currency: Set(CURRENCY.into()),
        success_url: Set(new.success_url.clone()),
        cancel_url: Set(new.cancel_url.clone()),
        problem: Set(None),
        transaction_id: Set(None),
        paid_at: Set(None),
        payment_intent: Set(None),
        refunded_cents: Set(0),
        held_cents: Set(0),
        dispute_id: Set(None),
        dispute_status: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
    };
    match row.insert(&st.core.db).await {
        Ok(_) => {}
        // Another call holds the ad's pending slot: answer its checkout.
        Err(e) if matches!(e.sql_err(), Some(SqlErr::UniqueConstraintViolation(_))) => {
            return wait_for_pending(st, new.ad.id).await;
        }
        Err(e) => return Err(e.into()),
    }
    let asked = st
        .providers
        .payments
        .create_checkout(&CheckoutRequest {
            payment_id: id,
            amount_cents: amount,
            currency: CURRENCY,
            product_name: &format!("Ad budget: {}", new.ad.title),
            success_url: &new.success_url,
            cancel_url: &new.cancel_url,
            origin: new.origin,
        })
        .await;
    let session = match asked {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!(payment = %id, error = %e, "payments provider refused a checkout");
            // Frees the ad's slot so the advertiser can try again.
            payment::Entity::delete_by_id(id).exec(&st.core.db).await?;
            return Err(ApiError::new(
                crate::core::error::Kind::Unavailable,
                "the payment provider could not open a checkout; try again",
            )
            .code("payment_provider_unavailable"));
        }
    };
    payment::Entity::update_many()
        .col_expr(payment::Column::SessionId, Expr::value(session.id))
        .col_expr(payment::Column::CheckoutUrl, Expr::value(session.url))
        .col_expr(payment::Column::UpdatedAt, Expr::value(st.core.now()))
        .filter(payment::Column::Id.eq(id))
        .exec(&st.core.db)
        .await?;
    payment::Entity::find_by_id(id)
        .one(&st.core.db)
        .await?
        .ok_or_else(payment_not_found)
}

async fn pending_with_session(st: &AdvertisingState, ad: Uuid) -> Result<Option<payment::Model>> {
    Ok(payment::Entity::find()
        .filter(payment::Column::AdId.eq(ad))
        .filter(payment::Column::Status.eq(PaymentStatus::Pending))
        .filter(payment::Column::SessionId.is_not_null())
        .one(&st.core.db)
        .await?)
}

/// The pending checkout a racing call is making, once its session is known.
async fn wait_for_pending(st: &AdvertisingState, ad: Uuid) -> Result<payment::Model> {
    let start = std::time::Instant::now();
    loop {
        if let Some(p) = pending_with_session(st, ad).await? {
            return Ok(p);
        }
        if start.elapsed() > RACE_WAIT {
            return Err(ApiError::new(
                crate::core::error::Kind::Conflict,
                "a checkout of this ad is being opened; try again in a moment",
            )
            .code("checkout_in_progress"));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The advertiser's ad (not deleted); another's or an unknown one answers 404.
pub async fn owned_ad(st: &AdvertisingState, advertiser: Uuid, raw_id: &str) -> Result<ad::Model> {
    let id = Uuid::parse_str(raw_id.trim()).map_err(|_| AdvertisingError::NotFound(Record::Ad))?;
    ad::Entity::find_by_id(id)
        .filter(ad::Column::AdvertiserId.eq(advertiser))
        .filter(ad::Column::Status.ne(AdStatus::Deleted))
        .one(&st.core.db)
        .await?
        .ok_or_else(|| AdvertisingError::NotFound(Record::Ad).into())
}

/// The advertiser's payment by its id or its session id, with its ad.
pub async fn owned(
    st: &AdvertisingState,
    advertiser: Uuid,
    raw_id: &str,
) -> Result<(payment::Model, ad::Model)> {
    let raw = raw_id.trim();
    let select = match Uuid::parse_str(raw) {
        Ok(id) => payment::Entity::find_by_id(id),
        Err(_) => payment::Entity::find().filter(payment::Column::SessionId.eq(raw)),
    };
    with_ad(
        st,
        select
            .filter(payment::Column::AdvertiserId.eq(advertiser))
            .one(&st.core.db)
            .await?,
    )
    .await
}

/// A payment found (or 404) with its ad.
pub async fn with_ad(
    st: &AdvertisingState,
    found: Option<payment::Model>,
) -> Result<(payment::Model, ad::Model)> {
    let p = found.ok_or_else(payment_not_found)?;
    let a = ad::Entity::find_by_id(p.ad_id)
        .one(&st.core.db)
        .await?
        .ok_or_else(payment_not_found)?;
    Ok((p, a))
}
