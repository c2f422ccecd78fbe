//! Dealer applications and their approval: apply and read one's status (/auth/…), approve
//! and list the pending ones (administrators, /dealers/…).

use crate::core::auth::{AdminRole, Bearer};
use crate::core::json_body::Json;
use crate::services::marketplace::auth::{user_id, Verified};
use crate::services::marketplace::dealers::dto::*;
use crate::services::marketplace::dealers::store::{self, dealer_id, NewApplication};
use crate::services::marketplace::domain::{self, required};
use crate::services::marketplace::error::Result;
use crate::services::marketplace::openapi::Errors;
use crate::services::marketplace::state::MarketplaceState;
use crate::services::marketplace::wire::*;
use actix_web::{get, post, put, web, HttpResponse};

#[utoipa::path(tag = "dealers", request_body = DealerApplicationRequest, security(("bearer" = [])),
    responses((status = 201, body = Success<ApplicationSummary>), Errors))]
#[post("/auth/dealer-application")]
pub async fn apply(
    auth: Verified,
    st: web::Data<MarketplaceState>,
    body: Json<DealerApplicationRequest>,
) -> Result<HttpResponse> {
    let b = body.into_inner();
    let business_name = domain::text(
        "businessName",
        required("businessName", &b.business_name)?,
        100,
    )?;
    let location = domain::text("location", required("location", &b.location)?, 200)?;
    let business_phone = b
        .business_phone
        .as_deref()
        .map(domain::business_phone)
        .transpose()?;
    let new = NewApplication {
        business_name,
        location,
        business_phone,
        website: b.website.as_deref().map(domain::website).transpose()?,
        description: b
            .description
            .as_deref()
            .map(|d| domain::text("description", d, 2000))
            .transpose()?,
    };
    let created = store::apply(&st, user_id(&auth)?, new).await?;
    Ok(HttpResponse::Created().json(ok_with("Dealer application submitted", created)))
}

#[utoipa::path(tag = "dealers", security(("bearer" = [])),
    responses((status = 200, body = Success<ApplicationStatus>), Errors))]
#[get("/auth/dealer-application-status")]
pub async fn status(auth: Bearer, st: web::Data<MarketplaceState>) -> Result<HttpResponse> {
    let status = store::status(&st, user_id(&auth)?).await?;
    Ok(HttpResponse::Ok().json(ok(status)))
}

#[utoipa::path(tag = "dealers", security(("bearer" = [])),
    params(("id" = String, Path, description = "The dealer's (applicant's) user id")),
    responses((status = 200, body = Success<Dealer>), Errors))]
#[put("/dealers/{id}/approve")]
pub async fn approve(
    _admin: Bearer<AdminRole>,
    st: web::Data<MarketplaceState>,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let dealer = store::approve(&st, dealer_id(&id)?).await?;
    Ok(HttpResponse::Ok().json(ok_with("Dealer approved", dealer)))
}

#[utoipa::path(tag = "dealers", security(("bearer" = [])), params(PageParams),
    responses((status = 200, body = List<Dealer>), Errors))]
#[get("/dealers/admin/pending")]
pub async fn pending(
    _admin: Bearer<AdminRole>,
    st: web::Data<MarketplaceState>,
    paging: web::Query<PageParams>,
) -> Result<HttpResponse> {
    let page = store::pending(&st, paging.window()?).await?;
    Ok(HttpResponse::Ok().json(list(page)))
}
