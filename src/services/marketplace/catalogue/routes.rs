//! The catalogue's endpoints over HTTP (`/cars/makes`, `/cars/models/{make}`,
//! `/cars/body-types`, `/cars/features`, `/cars/templates/{make}/{model}`; no auth): what
//! `data.rs` starts with plus every make and model listed since (`store.rs`).

use crate::services::marketplace::catalogue::store::{self, Template};
use crate::services::marketplace::error::Result;
use crate::services::marketplace::openapi::Errors;
use crate::services::marketplace::state::MarketplaceState;
use crate::services::marketplace::wire::{ok, Success};
use actix_web::{get, web, HttpResponse};

#[utoipa::path(tag = "catalogue", responses((status = 200, body = Success<Vec<String>>), Errors))]
#[get("/cars/makes")]
pub async fn makes(st: web::Data<MarketplaceState>) -> Result<HttpResponse> {
    Ok(HttpResponse::Ok().json(ok(store::makes(&st).await?)))
}

#[utoipa::path(tag = "catalogue",
    params(("make" = String, Path, description = "A make, in any case")),
    responses((status = 200, body = Success<Vec<String>>), Errors))]
#[get("/cars/models/{make}")]
pub async fn models(
    st: web::Data<MarketplaceState>,
    make: web::Path<String>,
) -> Result<HttpResponse> {
    Ok(HttpResponse::Ok().json(ok(store::models(&st, &make).await?)))
}

#[utoipa::path(tag = "catalogue", responses((status = 200, body = Success<Vec<String>>), Errors))]
#[get("/cars/body-types")]
pub async fn body_types(st: web::Data<MarketplaceState>) -> Result<HttpResponse> {
    Ok(HttpResponse::Ok().json(ok(store::body_types(&st).await?)))
}

#[utoipa::path(tag = "catalogue", responses((status = 200, body = Success<Vec<String>>), Errors))]
#[get("/cars/features")]
pub async fn features(st: web::Data<MarketplaceState>) -> Result<HttpResponse> {
    Ok(HttpResponse::Ok().json(ok(store::features(&st).await?)))
}

#[utoipa::path(tag = "catalogue",
    params(("make" = String, Path, description = "A make, in any case"),
           ("model" = String, Path, description = "One of its models, in any case")),
    responses((status = 200, body = Success<Template>), Errors))]
#[get("/cars/templates/{make}/{model}")]
pub async fn template(
    st: web::Data<MarketplaceState>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse> {
    let (make, model) = path.into_inner();
    Ok(HttpResponse::Ok().json(ok(store::template(&st, &make, &model).await?)))
}
