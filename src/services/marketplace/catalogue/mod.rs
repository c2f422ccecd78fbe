//! The car catalogue (`/cars/makes`, `/cars/models/{make}`, `/cars/body-types`,
//! `/cars/features`, no auth): what the catalogue module starts with plus every make and
//! model listed since ([`super::service::catalogue`]).

pub mod data;

use super::dto::{ok, Success};
use super::error::Result;
use super::openapi::Errors;
use super::service::catalogue;
use super::MarketplaceState;
use actix_web::{get, web, HttpResponse};

#[utoipa::path(tag = "catalogue", responses((status = 200, body = Success<Vec<String>>), Errors))]
#[get("/cars/makes")]
pub async fn makes(st: web::Data<MarketplaceState>) -> Result<HttpResponse> {
    Ok(HttpResponse::Ok().json(ok(catalogue::makes(&st).await?)))
}

#[utoipa::path(tag = "catalogue",
    params(("make" = String, Path, description = "A make, in any case")),
    responses((status = 200, body = Success<Vec<String>>), Errors))]
#[get("/cars/models/{make}")]
pub async fn models(
    st: web::Data<MarketplaceState>,
    make: web::Path<String>,
) -> Result<HttpResponse> {
    let (_, models) = catalogue::models(&st, &make).await?;
    let names: Vec<String> = models.into_iter().map(|m| m.name).collect();
    Ok(HttpResponse::Ok().json(ok(names)))
}

#[utoipa::path(tag = "catalogue", responses((status = 200, body = Success<Vec<String>>), Errors))]
#[get("/cars/body-types")]
pub async fn body_types(st: web::Data<MarketplaceState>) -> Result<HttpResponse> {
    Ok(HttpResponse::Ok().json(ok(catalogue::body_types(&st).await?)))
}

#[utoipa::path(tag = "catalogue", responses((status = 200, body = Success<Vec<String>>), Errors))]
#[get("/cars/features")]
pub async fn features(st: web::Data<MarketplaceState>) -> Result<HttpResponse> {
    Ok(HttpResponse::Ok().json(ok(catalogue::features(&st).await?)))
}
