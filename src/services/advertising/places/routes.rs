//! /categories, /countries and their cities: open to everyone, unpaginated.

use super::super::error::{AdvertisingError, Record, Result};
use super::super::openapi::Errors;
use super::super::state::AdvertisingState;
use super::super::wire::{ok, Data};
use super::data::{self, City, Country};
use actix_web::{get, web, HttpResponse};
use sea_orm::{EntityTrait, QueryOrder};
use serde::Serialize;
use switchboard_entities::advertising::category;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
pub struct CategoryView {
    /// A readable slug.
    pub id: String,
    pub name: String,
    pub description: String,
}

impl From<category::Model> for CategoryView {
    fn from(c: category::Model) -> Self {
        Self {
            id: c.id,
            name: c.name,
            description: c.description,
        }
    }
}

#[utoipa::path(tag = "places", responses((status = 200, body = Data<Vec<CategoryView>>), Errors))]
#[get("/categories")]
pub async fn categories(st: web::Data<AdvertisingState>) -> Result<HttpResponse> {
    let rows = category::Entity::find()
        .order_by_asc(category::Column::Name)
        .all(&st.core.db)
        .await?;
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
    let row = category::Entity::find_by_id(id.trim().to_ascii_lowercase())
        .one(&st.core.db)
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
