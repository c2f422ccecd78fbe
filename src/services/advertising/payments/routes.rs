//! /api/campaign-payments: checkouts funding an ad, the provider's webhook, the sandbox's
//! checkout page; /advertisers/invoices: the advertiser's invoices and their PDFs.

use super::super::error::{AdvertisingError, Result};
use super::super::openapi::Errors;
use super::super::sessions::{self, AdvertiserBearer};
use super::super::state::AdvertisingState;
use super::super::wire::{ok, window, Data, List};
use super::dto::*;
use super::sandbox::{self, Choice};
use super::{invoice, store, webhook};
use crate::core::json_body::Json;
use actix_web::http::header;
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use sea_orm::{ColumnTrait, QueryFilter};
use serde::Deserialize;
use switchboard_entities::advertising::invoice as invoices;

/// A payer's return address: an absolute http(s) URL.
fn return_url(field: &'static str, raw: Option<&str>) -> Result<String> {
    let raw = raw.map(str::trim).unwrap_or_default();
    if raw.is_empty() {
        return Err(AdvertisingError::invalid(field, "is required").into());
    }
    let good = raw.len() <= 2048
        && url::Url::parse(raw)
            .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some());
    if !good {
        return Err(AdvertisingError::invalid(field, "must be an absolute http(s) URL").into());
    }
    Ok(raw.to_owned())
}

/// Opens a checkout charging the ad's unfunded budget (budget − funded); while one of the
/// ad's checkouts is pending, answers that one.
#[utoipa::path(tag = "payments", request_body = CreateCheckout,
    responses((status = 200, body = Data<CheckoutView>), Errors), security(("bearer" = [])))]
#[post("/api/campaign-payments/create-checkout")]
pub async fn create_checkout(
    st: web::Data<AdvertisingState>,
    bearer: AdvertiserBearer,
    req: HttpRequest,
    body: Json<CreateCheckout>,
) -> Result<HttpResponse> {
    let me = sessions::advertiser(&bearer)?;
    super::super::advertisers::suspension::refuse_suspended(&me)?;
    let Some(ad_id) = body.ad_id.as_deref() else {
        return Err(AdvertisingError::invalid("adId", "is required").into());
    };
    let success_url = return_url("successUrl", body.success_url.as_deref())?;
    let cancel_url = return_url("cancelUrl", body.cancel_url.as_deref())?;
    let ad = store::owned_ad(&st, me.id, ad_id).await?;
    let origin = {
        let info = req.connection_info();
        format!("{}://{}", info.scheme(), info.host())
    };
    let p = store::checkout(
        &st,
        store::NewCheckout {
            advertiser: me.id,
            ad,
            success_url,
            cancel_url,
            origin: &origin,
        },
    )
    .await?;
    Ok(ok(CheckoutView {
        payment_id: p.id,
        session_id: p.session_id.unwrap_or_default(),
        url: p.checkout_url.unwrap_or_default(),
    }))
}

#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct WebhookAnswer {
    pub received: bool,
    /// What handling did: funded, mismatch, expired, failed, unpaid, settled,
    /// unknown_payment, ignored or replay.
    pub outcome: String,
}

/// The payment provider's events, signed with `Stripe-Signature` over the raw body.
#[utoipa::path(tag = "payments", request_body(content = String, content_type = "application/json",
        description = "a Stripe event, as sent"),
    params(("Stripe-Signature" = String, Header, description = "t=<unix>,v1=<hex HMAC-SHA256>")),
    responses((status = 200, body = Data<WebhookAnswer>), Errors))]
#[post("/api/campaign-payments/webhook")]
pub async fn payment_webhook(
    st: web::Data<AdvertisingState>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse> {
    let signature = req
        .headers()
        .get("Stripe-Signature")
        .and_then(|v| v.to_str().ok());
    let outcome = webhook::receive(&st, signature, &body).await?;
    Ok(ok(WebhookAnswer {
        received: true,
        outcome: outcome.as_str().into(),
    }))
}

/// A payment of the advertiser's, by its id or its checkout session's id.
#[utoipa::path(tag = "payments", params(("id" = String, Path, description = "paymentId or sessionId")),
    responses((status = 200, body = Data<PaymentView>), Errors), security(("bearer" = [])))]
#[get("/api/campaign-payments/{id}")]
pub async fn payment(
    st: web::Data<AdvertisingState>,
    bearer: AdvertiserBearer,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let me = sessions::advertiser(&bearer)?;
    let (p, a) = store::owned(&st, me.id, &id).await?;
    Ok(ok(PaymentView::new(&p, &a)))
}

fn html(body: String) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(body)
}

/// The sandbox provider's checkout page (only while the sandbox is the provider).
#[utoipa::path(tag = "payments", params(("session_id" = String, Path)),
    responses((status = 200, description = "the checkout page", content_type = "text/html"), Errors))]
#[get("/api/campaign-payments/sandbox/{session_id}")]
pub async fn sandbox_page(
    st: web::Data<AdvertisingState>,
    session_id: web::Path<String>,
) -> Result<HttpResponse> {
    let (p, a) = sandbox::session(&st, &session_id).await?;
    Ok(html(sandbox::page(&p, &a)))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SandboxForm {
    /// `pay` or `cancel` while pending; `refund` (with `amountUsd`), `dispute`,
    /// `dispute_won` or `dispute_lost` once paid.
    pub action: String,
    /// Dollars to refund, on top of what was refunded before.
    pub amount_usd: Option<String>,
}

impl SandboxForm {
    fn choice(&self) -> Result<Choice> {
        Ok(match self.action.as_str() {
            "pay" => Choice::Pay,
            "cancel" => Choice::Cancel,
            "refund" => {
                let raw = serde_json::Value::from(self.amount_usd.clone());
                Choice::Refund(super::super::wire::parse_usd("amountUsd", &raw)?.0)
            }
            "dispute" => Choice::Dispute,
            "dispute_won" => Choice::DisputeWon,
            "dispute_lost" => Choice::DisputeLost,
            _ => {
                return Err(AdvertisingError::invalid(
                    "action",
                    "must be pay, cancel, refund, dispute, dispute_won or dispute_lost",
                )
                .into())
            }
        })
    }
}

/// Pay or Cancel on the sandbox page: the signed event goes through the webhook's handling,
/// then the payer is sent to the success or cancel URL. On a paid checkout's page, a refund
/// or a dispute's moves: the event is handled the same way and the page shows the result.
#[utoipa::path(tag = "payments", params(("session_id" = String, Path)),
    request_body(content = SandboxForm, content_type = "application/x-www-form-urlencoded"),
    responses((status = 303, description = "to the success or cancel URL"),
        (status = 200, description = "the page again: after a refund or a dispute's move, or a move the checkout is not open to", content_type = "text/html"),
        Errors))]
#[post("/api/campaign-payments/sandbox/{session_id}")]
pub async fn sandbox_decide(
    st: web::Data<AdvertisingState>,
    session_id: web::Path<String>,
    form: web::Form<SandboxForm>,
) -> Result<HttpResponse> {
    let choice = form.choice()?;
    let (p, a) = sandbox::session(&st, &session_id).await?;
    if !choice.open_to(&p) {
        return Ok(html(sandbox::page(&p, &a)));
    }
    sandbox::decide(&st, &p, choice).await?;
    let to = match choice {
        Choice::Pay => &p.success_url,
        Choice::Cancel => &p.cancel_url,
        _ => {
            let (p, a) = sandbox::session(&st, &session_id).await?;
            return Ok(html(sandbox::page(&p, &a)));
        }
    };
    Ok(HttpResponse::SeeOther()
        .insert_header((header::LOCATION, to.as_str()))
        .finish())
}

/// The advertiser's invoices, newest first.
#[utoipa::path(tag = "payments", params(super::super::wire::StatusPage),
    responses((status = 200, body = Data<List<InvoiceView>>), Errors), security(("bearer" = [])))]
#[get("/advertisers/invoices")]
pub async fn list_invoices(
    st: web::Data<AdvertisingState>,
    bearer: AdvertiserBearer,
    q: web::Query<super::super::wire::StatusPage>,
) -> Result<HttpResponse> {
    let me = sessions::advertiser(&bearer)?;
    let select = <invoices::Entity as sea_orm::EntityTrait>::find()
        .filter(invoices::Column::AdvertiserId.eq(me.id));
    let page = super::super::wire::newest_first(
        &st.core.db,
        select,
        invoices::Column::IssuedAt,
        invoices::Column::Id,
        window(q.page, q.limit)?,
    )
    .await?;
    Ok(ok(List::from(page.map(|i| InvoiceView::from(&i)))))
}

/// An invoice's PDF.
#[utoipa::path(tag = "payments", params(("id" = String, Path)),
    responses((status = 200, description = "the invoice", content_type = "application/pdf"), Errors),
    security(("bearer" = [])))]
#[get("/advertisers/invoices/{id}/pdf")]
pub async fn invoice_pdf(
    st: web::Data<AdvertisingState>,
    bearer: AdvertiserBearer,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let me = sessions::advertiser(&bearer)?;
    let i = invoice::owned(&st, me.id, &id).await?;
    let bytes = invoice::pdf(&st, &i).await?;
    Ok(HttpResponse::Ok()
        .content_type("application/pdf")
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{}.pdf\"", i.number),
        ))
        .body(bytes))
}
