//! The customer's side over HTTP: favorites, inquiries to dealers, liked and viewed cars.

use crate::core::auth::Bearer;
use crate::core::json_body::Json;
use crate::services::marketplace::auth::caller;
use crate::services::marketplace::auth::Verified;
use crate::services::marketplace::cars::dto::Car;
use crate::services::marketplace::cars::store::car_id;
use crate::services::marketplace::customers::dto::*;
use crate::services::marketplace::customers::store::{self as svc, NewInquiryInput};
use crate::services::marketplace::domain::body_id;
use crate::services::marketplace::domain::required;
use crate::services::marketplace::error::Result;
use crate::services::marketplace::interactions::domain::{contact_method, inquiry_message};
use crate::services::marketplace::openapi::Errors;
use crate::services::marketplace::socket::NEW_INQUIRY;
use crate::services::marketplace::state::MarketplaceState;
use crate::services::marketplace::wire::{list, ok_with, List, PageParams, Success};
use actix_web::{delete, get, post, web, HttpResponse};

#[utoipa::path(tag = "customers", security(("bearer" = [])), params(PageParams),
    responses((status = 200, body = List<Car>), Errors))]
#[get("/customers/favorites")]
pub async fn favorites(
    auth: Bearer,
    st: web::Data<MarketplaceState>,
    paging: web::Query<PageParams>,
) -> Result<HttpResponse> {
    let page = svc::favorites(&st, caller(&auth)?.id, paging.window()?).await?;
    Ok(HttpResponse::Ok().json(list(page.map(Car::from))))
}

#[utoipa::path(tag = "customers", security(("bearer" = [])),
    params(("carId" = String, Path, description = "The car's id")),
    responses((status = 201, description = "Added", body = Success<FavoriteState>),
        (status = 200, description = "Already a favorite", body = Success<FavoriteState>),
        Errors))]
#[post("/customers/favorites/{carId}")]
pub async fn add_favorite(
    auth: Verified,
    st: web::Data<MarketplaceState>,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let (added, favorite_count) = svc::add_favorite(&st, caller(&auth)?.id, car_id(&id)?).await?;
    let state = FavoriteState {
        favorited: true,
        favorite_count,
    };
    Ok(if added {
        HttpResponse::Created().json(ok_with("Added to favorites", state))
    } else {
        HttpResponse::Ok().json(ok_with("Already in favorites", state))
    })
}

#[utoipa::path(tag = "customers", security(("bearer" = [])),
    params(("carId" = String, Path, description = "The car's id")),
    responses((status = 200, body = Success<FavoriteState>), Errors))]
#[delete("/customers/favorites/{carId}")]
pub async fn remove_favorite(
    auth: Verified,
    st: web::Data<MarketplaceState>,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let favorite_count = svc::remove_favorite(&st, caller(&auth)?.id, car_id(&id)?).await?;
    Ok(HttpResponse::Ok().json(ok_with(
        "Removed from favorites",
        FavoriteState {
            favorited: false,
            favorite_count,
        },
    )))
}

#[utoipa::path(tag = "customers", security(("bearer" = [])), request_body = InquiryRequest,
    responses((status = 201, body = Success<Inquiry>), Errors))]
#[post("/customers/inquiries")]
pub async fn inquire(
    auth: Verified,
    st: web::Data<MarketplaceState>,
    body: Json<InquiryRequest>,
) -> Result<HttpResponse> {
    let input = NewInquiryInput {
        car_id: body_id("carId", &body.car_id)?,
        dealer_id: body_id("dealerId", &body.dealer_id)?,
        message: inquiry_message(required("message", &body.message)?)?,
        contact_method: contact_method(required("contactMethod", &body.contact_method)?)?,
    };
    let (created, car, notice) = svc::create_inquiry(&st, caller(&auth)?.id, input).await?;
    st.notify(NEW_INQUIRY, &notice);
    let inquiry = Inquiry::new(created, Some(car));
    Ok(HttpResponse::Created().json(ok_with("Inquiry sent", inquiry)))
}

#[utoipa::path(tag = "customers", security(("bearer" = [])), params(PageParams),
    responses((status = 200, body = List<Inquiry>), Errors))]
#[get("/customers/inquiries")]
pub async fn inquiries(
    auth: Bearer,
    st: web::Data<MarketplaceState>,
    paging: web::Query<PageParams>,
) -> Result<HttpResponse> {
    let page = svc::inquiries(&st, caller(&auth)?.id, paging.window()?).await?;
    Ok(HttpResponse::Ok().json(list(page.map(|(i, c)| Inquiry::new(i, c)))))
}

#[utoipa::path(tag = "customers", security(("bearer" = [])), params(PageParams),
    responses((status = 200, body = List<Car>), Errors))]
#[get("/customers/history/viewed-cars")]
pub async fn viewed_cars(
    auth: Bearer,
    st: web::Data<MarketplaceState>,
    paging: web::Query<PageParams>,
) -> Result<HttpResponse> {
    let page = svc::viewed(&st, caller(&auth)?.id, paging.window()?).await?;
    Ok(HttpResponse::Ok().json(list(page.map(Car::from))))
}

async fn liked(
    auth: Bearer,
    st: web::Data<MarketplaceState>,
    paging: web::Query<PageParams>,
) -> Result<HttpResponse> {
    let page = svc::liked(&st, caller(&auth)?.id, paging.window()?).await?;
    Ok(HttpResponse::Ok().json(list(page.map(Car::from))))
}

#[utoipa::path(tag = "customers", security(("bearer" = [])), params(PageParams),
    responses((status = 200, body = List<Car>), Errors))]
#[get("/customers/liked-cars")]
pub async fn liked_cars(
    auth: Bearer,
    st: web::Data<MarketplaceState>,
    paging: web::Query<PageParams>,
) -> Result<HttpResponse> {
    liked(auth, st, paging).await
}

/// The same list as `GET /customers/liked-cars`, where the spec also lists it.
#[utoipa::path(tag = "cars", security(("bearer" = [])), params(PageParams),
    responses((status = 200, body = List<Car>), Errors))]
#[get("/cars/user/liked")]
pub async fn user_liked(
    auth: Bearer,
    st: web::Data<MarketplaceState>,
    paging: web::Query<PageParams>,
) -> Result<HttpResponse> {
    liked(auth, st, paging).await
}
