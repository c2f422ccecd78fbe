//! /categories, /countries and their cities: open to everyone, unpaginated.

use super::super::error::{AdvertisingError, Record, Result};
use super::super::openapi::Errors;
use super::super::state::AdvertisingState;
use super::super::wire::{ok, Data};
use super::data::{self, City, Country};
use super::dto::CategoryView;
use super::store;
use actix_web::{get, web, HttpResponse};

#[utoipa::path(tag = "places", responses((status = 200, body = Data<Vec<CategoryView>>), Errors))]
#[get("/categories")]
pub async fn categories(st: web::Data<AdvertisingState>) -> Result<HttpResponse> {
    let rows = store::categories(&st.core.db).await?;
    Ok(ok(rows
        .into_iter()
        .map(CategoryView::from)
        .collect::<Vec<_>>()))
}

#[utoipa::path(tag = "places", params(("id" = String, Path)),
    responses((status = 200, body = Data<CategoryView>), Errors))]
#[get("/categories/{id}")]
pub async fn one_category(
    st: web::Data<AdvertisingState>,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let row = store::category(&st.core.db, &id)
        .await?
        .ok_or(AdvertisingError::NotFound(Record::Category))?;
    Ok(ok(CategoryView::from(row)))
}

/// All 249 ISO 3166-1 countries.
#[utoipa::path(tag = "places", responses((status = 200, body = Data<Vec<Country>>), Errors))]
#[get("/countries")]
pub async fn countries() -> HttpResponse {
    ok(data::countries())
}

/// One country by its alpha-2 or alpha-3 code (or id), any case.
#[utoipa::path(tag = "places", params(("code" = String, Path)),
    responses((status = 200, body = Data<Country>), Errors))]
#[get("/countries/{code}")]
pub async fn country(code: web::Path<String>) -> Result<HttpResponse> {
    Ok(ok(found(&code)?))
}

/// The country's largest cities, largest first.
#[utoipa::path(tag = "places", params(("id" = String, Path, description = "the country's id or alpha-2 code")),
    responses((status = 200, body = Data<Vec<City>>), Errors))]
#[get("/countries/{id}/cities")]
pub async fn cities(id: web::Path<String>) -> Result<HttpResponse> {
    let cities: &[City] = data::cities(found(&id)?);
    Ok(ok(cities))
}

fn found(code: &str) -> Result<&'static Country> {
    data::country(code).ok_or_else(|| AdvertisingError::NotFound(Record::Country).into())
}
