//! Dealers as the public sees them (`GET /dealers`, `GET /dealers/{id}`) and the dealer's
//! own profile, business hours and business info (`/dealers/profile/…`, dealers only).

use crate::core::auth::{Bearer, DealerRole};
use crate::core::json_body::Json;
use crate::core::page::Page;
use crate::services::marketplace::auth::user_id;
use crate::services::marketplace::auth::Verified;
use crate::services::marketplace::dealers::dto::*;
use crate::services::marketplace::dealers::profiles::hours::BusinessHours;
use crate::services::marketplace::dealers::profiles::store::{self, ProfileChanges};
use crate::services::marketplace::dealers::store::dealer_id;
use crate::services::marketplace::domain;
use crate::services::marketplace::error::{MarketplaceError, Result};
use crate::services::marketplace::openapi::Errors;
use crate::services::marketplace::state::MarketplaceState;
use crate::services::marketplace::wire::*;
use actix_web::{get, put, web, HttpResponse};

const MAX_DESCRIPTION: usize = 2000;

#[utoipa::path(tag = "dealers", params(DealerListParams),
    responses((status = 200, body = List<Dealer>), Errors))]
#[get("/dealers")]
pub async fn all(
    st: web::Data<MarketplaceState>,
    q: web::Query<DealerListParams>,
) -> Result<HttpResponse> {
    if let Some(kind) = q.kind.as_deref().filter(|k| *k != "dealer") {
        return Err(MarketplaceError::invalid("type", kind, "type must be dealer").into());
    }
    let approved = match q.is_approved.as_deref() {
        None | Some("true") => true,
        Some("false") => false,
        Some(other) => {
            return Err(MarketplaceError::invalid(
                "isApproved",
                other,
                "isApproved must be true or false",
            )
            .into())
        }
    };
    let window = PageParams {
        page: q.page.clone(),
        limit: q.limit.clone(),
    }
    .window()?;
    let page = if approved {
        store::list(&st, window).await?
    } else {
        // Every listed dealer is approved; applicants are not public.
        Page {
            items: Vec::new(),
            total: 0,
            window,
        }
    };
    Ok(HttpResponse::Ok().json(list(page)))
}

#[utoipa::path(tag = "dealers", params(("id" = String, Path, description = "The dealer's id")),
    responses((status = 200, body = Success<Dealer>), Errors))]
#[get("/dealers/{id}")]
pub async fn one(st: web::Data<MarketplaceState>, id: web::Path<String>) -> Result<HttpResponse> {
    let dealer = store::dealer(&st.core.db, dealer_id(&id)?, Audience::Public).await?;
    Ok(HttpResponse::Ok().json(ok(dealer)))
}

#[utoipa::path(tag = "dealers", security(("bearer" = [])),
    responses((status = 200, body = Success<Dealer>), Errors))]
#[get("/dealers/profile/me")]
pub async fn profile(
    auth: Bearer<DealerRole>,
    st: web::Data<MarketplaceState>,
) -> Result<HttpResponse> {
    let dealer = store::dealer(&st.core.db, user_id(&auth)?, Audience::OwnerOrAdmin).await?;
    Ok(HttpResponse::Ok().json(ok(dealer)))
}

/// Checks an optional text field against its rule.
fn optional_text(field: &'static str, v: &Option<String>, max: usize) -> Result<Option<String>> {
    Ok(v.as_deref()
        .map(|s| domain::text(field, s, max))
        .transpose()?)
}

/// Refuses a change that changes nothing, naming the first field.
fn some_change(changes: ProfileChanges, first: &'static str) -> Result<ProfileChanges> {
    if changes.is_empty() {
        return Err(MarketplaceError::Validation {
            field: first,
            value: None,
            message: "give at least one field to change".into(),
        }
        .into());
    }
    Ok(changes)
}

#[utoipa::path(tag = "dealers", request_body = ProfileRequest, security(("bearer" = [])),
    responses((status = 200, body = Success<Dealer>), Errors))]
#[put("/dealers/profile/me")]
pub async fn update_profile(
    auth: Verified<DealerRole>,
    st: web::Data<MarketplaceState>,
    body: Json<ProfileRequest>,
) -> Result<HttpResponse> {
    let changes = ProfileChanges {
        name: optional_text("name", &body.name, 100)?,
        location: optional_text("location", &body.location, 200)?,
        description: optional_text("description", &body.description, MAX_DESCRIPTION)?,
        ..ProfileChanges::default()
    };
    let changes = some_change(changes, "name")?;
    let dealer = store::update(&st, user_id(&auth)?, changes).await?;
    Ok(HttpResponse::Ok().json(ok_with("Profile updated", dealer)))
}

#[utoipa::path(tag = "dealers", security(("bearer" = [])),
    responses((status = 200, body = Success<BusinessHoursView>), Errors))]
#[get("/dealers/profile/business-hours")]
pub async fn hours(
    auth: Bearer<DealerRole>,
    st: web::Data<MarketplaceState>,
) -> Result<HttpResponse> {
    let dealer = store::dealer(&st.core.db, user_id(&auth)?, Audience::OwnerOrAdmin).await?;
    let business_hours = dealer
        .business_hours
        .unwrap_or_else(|| serde_json::json!({}));
    Ok(HttpResponse::Ok().json(ok(BusinessHoursView { business_hours })))
}

#[utoipa::path(tag = "dealers", request_body = BusinessHoursRequest, security(("bearer" = [])),
    responses((status = 200, body = Success<BusinessHoursView>), Errors))]
#[put("/dealers/profile/business-hours")]
pub async fn set_hours(
    auth: Verified<DealerRole>,
    st: web::Data<MarketplaceState>,
    body: Json<BusinessHoursRequest>,
) -> Result<HttpResponse> {
    let raw = body
        .business_hours
        .as_ref()
        .ok_or(MarketplaceError::Validation {
            field: "businessHours",
            value: None,
            message: "businessHours is required".into(),
        })?;
    let parsed = BusinessHours::parse(raw)?.to_json();
    let changes = ProfileChanges {
        business_hours: Some(parsed.clone()),
        ..ProfileChanges::default()
    };
    store::update(&st, user_id(&auth)?, changes).await?;
    let view = BusinessHoursView {
        business_hours: parsed,
    };
    Ok(HttpResponse::Ok().json(ok_with("Business hours updated", view)))
}

#[utoipa::path(tag = "dealers", request_body = BusinessInfoRequest, security(("bearer" = [])),
    responses((status = 200, body = Success<Dealer>), Errors))]
#[put("/dealers/profile/business-info")]
pub async fn set_info(
    auth: Verified<DealerRole>,
    st: web::Data<MarketplaceState>,
    body: Json<BusinessInfoRequest>,
) -> Result<HttpResponse> {
    let changes = ProfileChanges {
        website: body.website.as_deref().map(domain::website).transpose()?,
        description: optional_text("description", &body.description, MAX_DESCRIPTION)?,
        business_phone: body
            .business_phone
            .as_deref()
            .map(domain::business_phone)
            .transpose()?,
        publish_login_phone: body.publish_login_phone,
        ..ProfileChanges::default()
    };
    let changes = some_change(changes, "website")?;
    let dealer = store::update(&st, user_id(&auth)?, changes).await?;
    Ok(HttpResponse::Ok().json(ok_with("Business info updated", dealer)))
}
