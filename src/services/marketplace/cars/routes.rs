//! Car listings over HTTP: browse, filter, sort, search, facets; create, change and remove
//! (owner or administrator); the seller's own list.

use crate::core::auth::{Bearer, MaybeBearer};
use crate::core::json_body::Json;
use crate::services::marketplace::auth::{caller, Verified};
use crate::services::marketplace::cars::domain::{CarFields, Listing, Patch, STATUS};
use crate::services::marketplace::cars::dto::*;
use crate::services::marketplace::cars::filters::{CarFilters, RawFilters, Sort};
use crate::services::marketplace::cars::search::{self, Facets};
use crate::services::marketplace::cars::store::{self, car_id};
use crate::services::marketplace::domain;
use crate::services::marketplace::error::{MarketplaceError, Result};
use crate::services::marketplace::interactions::service as interactions;
use crate::services::marketplace::interactions::store::Viewer;
use crate::services::marketplace::openapi::Errors;
use crate::services::marketplace::state::MarketplaceState;
use crate::services::marketplace::wire::{list, ok, ok_with, Empty, List, PageParams, Success};
use actix_web::{delete, get, post, put, web, HttpResponse};

#[utoipa::path(tag = "cars", params(RawFilters, PageParams, SortParam),
    responses((status = 200, body = List<Car>), Errors))]
#[get("/cars")]
pub async fn browse(
    st: web::Data<MarketplaceState>,
    filters: web::Query<RawFilters>,
    paging: web::Query<PageParams>,
    sort: web::Query<SortParam>,
) -> Result<HttpResponse> {
    let filters = CarFilters::parse(&filters)?;
    let sort = Sort::parse("sort", sort.sort.as_deref())?;
    let page = search::list(&st, &filters, &sort, paging.window()?).await?;
    Ok(HttpResponse::Ok().json(list(page.map(Car::from))))
}

#[utoipa::path(tag = "cars", params(RawFilters),
    responses((status = 200, body = Success<Facets>), Errors))]
#[get("/cars/facets")]
pub async fn facets(
    st: web::Data<MarketplaceState>,
    filters: web::Query<RawFilters>,
) -> Result<HttpResponse> {
    let filters = CarFilters::parse(&filters)?;
    Ok(HttpResponse::Ok().json(ok(search::facets(&st, &filters).await?)))
}

#[utoipa::path(tag = "cars", request_body = AdvancedSearchRequest,
    responses((status = 200, body = SearchResults), Errors))]
#[post("/cars/advanced-search")]
pub async fn advanced_search(
    st: web::Data<MarketplaceState>,
    body: Json<AdvancedSearchRequest>,
) -> Result<HttpResponse> {
    let filters = CarFilters::parse(&body.filters.clone().unwrap_or_default())?;
    let sort = Sort::parse("sortBy", body.sort_by.as_deref())?;
    let query = body
        .query
        .as_deref()
        .map(|q| domain::text("query", q, 500))
        .transpose()?;
    let (page, read) = search::advanced(
        &st,
        query.as_deref(),
        &filters,
        &sort,
        body.paging().window()?,
    )
    .await?;
    Ok(HttpResponse::Ok().json(SearchResults::new(page, read)))
}

#[utoipa::path(tag = "cars", security(("bearer" = [])), request_body = CarFields,
    responses((status = 201, body = Success<Car>, links(
            ("like" = (operation_id = "like", parameters(("id" = "$response.body#/data/_id")))),
            ("views" = (operation_id = "views", parameters(("id" = "$response.body#/data/_id")))),
            ("record_view" = (operation_id = "record_view", parameters(("id" = "$response.body#/data/_id")))),
            ("comments" = (operation_id = "comments", parameters(("id" = "$response.body#/data/_id")))),
            ("comment" = (operation_id = "comment", parameters(("id" = "$response.body#/data/_id")))),
            ("share" = (operation_id = "share", parameters(("id" = "$response.body#/data/_id")))),
            ("test_drive" = (operation_id = "test_drive", parameters(("id" = "$response.body#/data/_id")))),
            ("test_drives" = (operation_id = "test_drives", parameters(("id" = "$response.body#/data/_id")))),
            ("analytics" = (operation_id = "analytics", parameters(("id" = "$response.body#/data/_id")))),
            ("add_favorite" = (operation_id = "add_favorite", parameters(("carId" = "$response.body#/data/_id")))))), Errors))]
#[post("/cars")]
pub async fn create(
    auth: Verified,
    st: web::Data<MarketplaceState>,
    body: Json<CarFields>,
) -> Result<HttpResponse> {
    let listing = Listing::parse(&body)?;
    let created = store::create(&st, caller(&auth)?.id, listing).await?;
    Ok(HttpResponse::Created().json(ok_with("Car listed", Car::from(created))))
}

#[utoipa::path(tag = "cars", security(("bearer" = [])), params(StatusParam, PageParams),
    responses((status = 200, body = List<Car>), Errors))]
#[get("/cars/my-cars")]
pub async fn my_cars(
    auth: Bearer,
    st: web::Data<MarketplaceState>,
    status: web::Query<StatusParam>,
    paging: web::Query<PageParams>,
) -> Result<HttpResponse> {
    let status = status
        .status
        .as_deref()
        .map(|s| STATUS.state(s))
        .transpose()?;
    let page = store::mine(&st, caller(&auth)?.id, status, paging.window()?).await?;
    Ok(HttpResponse::Ok().json(list(page.map(Car::from))))
}

/// Read with a token, the car is viewed: it joins the reader's recently viewed cars and
/// counts as `POST /cars/{id}/views` would (once per reader and day).
#[utoipa::path(tag = "cars", security((), ("bearer" = [])),
    params(("id" = String, Path, description = "The car's id")),
    responses((status = 200, body = Success<Car>), Errors))]
#[get("/cars/{id}")]
pub async fn get_one(
    auth: MaybeBearer,
    st: web::Data<MarketplaceState>,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let id = car_id(&id)?;
    if let Some(reader) = &auth.0 {
        let viewer = Viewer::User(caller(reader)?.id);
        interactions::view(&st, id, viewer).await?;
    }
    let car = store::find(&st.core.db, id).await?;
    Ok(HttpResponse::Ok().json(ok(Car::from(car))))
}

#[utoipa::path(tag = "cars", security(("bearer" = [])), request_body = CarFields,
    params(("id" = String, Path, description = "The car's id")),
    responses((status = 200, body = Success<Car>), Errors))]
#[put("/cars/{id}")]
pub async fn update(
    auth: Verified,
    st: web::Data<MarketplaceState>,
    id: web::Path<String>,
    body: Json<CarFields>,
) -> Result<HttpResponse> {
    let id = car_id(&id)?;
    let patch = Patch::parse(&body)?;
    if patch.is_empty() {
        return Err(MarketplaceError::Validation {
            field: "body",
            value: None,
            message: "send at least one field of the listing to change".into(),
        }
        .into());
    }
    let updated = store::update(&st, caller(&auth)?, id, patch).await?;
    Ok(HttpResponse::Ok().json(ok_with("Car updated", Car::from(updated))))
}

#[utoipa::path(tag = "cars", security(("bearer" = [])),
    params(("id" = String, Path, description = "The car's id")),
    responses((status = 200, body = Success<Empty>), Errors))]
#[delete("/cars/{id}")]
pub async fn remove(
    auth: Verified,
    st: web::Data<MarketplaceState>,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    store::delete(&st, caller(&auth)?, car_id(&id)?).await?;
    Ok(HttpResponse::Ok().json(ok_with("Car deleted", Empty {})))
}
