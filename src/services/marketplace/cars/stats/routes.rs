//! Figures over the interactions over HTTP: trending cars, many cars' counters at once, and
//! one car's analytics for its owner.

use crate::core::auth::{Bearer, MaybeBearer};
use crate::core::json_body::Json;
use crate::core::page::Bounds;
use crate::services::marketplace::auth::caller;
use crate::services::marketplace::cars::dto::Car;
use crate::services::marketplace::cars::stats::dto::*;
use crate::services::marketplace::cars::stats::store as ranking;
use crate::services::marketplace::cars::store::car_id;
use crate::services::marketplace::error::{MarketplaceError, Result};
use crate::services::marketplace::openapi::Errors;
use crate::services::marketplace::state::MarketplaceState;
use crate::services::marketplace::wire::{count, ok, Success};
use actix_web::{get, post, web, HttpResponse};
use switchboard_entities::marketplace::car;

/// Ids one stats request may ask for.
const MAX_BATCH: usize = 100;

#[utoipa::path(tag = "cars", params(TrendingParams),
    responses((status = 200, body = Success<Vec<TrendingCar>>), Errors))]
#[get("/cars/trending")]
pub async fn trending(
    st: web::Data<MarketplaceState>,
    params: web::Query<TrendingParams>,
) -> Result<HttpResponse> {
    let limit = Bounds::new(10, 50).limit(count("limit", params.limit.as_ref())?)?;
    let ranked = ranking::trending(&st, limit).await?;
    let cars: Vec<TrendingCar> = ranked
        .into_iter()
        .map(|(car, score)| TrendingCar {
            car: Car::from(car),
            score,
        })
        .collect();
    Ok(HttpResponse::Ok().json(ok(cars)))
}

#[utoipa::path(tag = "cars", request_body = StatsBatchRequest, security((), ("bearer" = [])),
    responses((status = 200, body = Success<StatsBatch>), Errors))]
#[post("/cars/stats/batch")]
pub async fn stats_batch(
    auth: MaybeBearer,
    st: web::Data<MarketplaceState>,
    body: Json<StatsBatchRequest>,
) -> Result<HttpResponse> {
    let asked = body.car_ids.as_deref().unwrap_or_default();
    if asked.is_empty() || asked.len() > MAX_BATCH {
        return Err(MarketplaceError::Validation {
            field: "carIds",
            value: Some(asked.len().to_string()),
            message: format!("carIds must hold 1 to {MAX_BATCH} ids"),
        }
        .into());
    }
    let viewer = auth.0.as_ref().map(caller).transpose()?;
    let owns = |c: &car::Model| viewer.is_some_and(|v| v.admin || v.id == c.seller_id);
    let (cars, not_found) = ranking::stats(&st, asked).await?;
    let batch = StatsBatch {
        stats: cars.iter().map(|c| CarStats::of(c, owns(c))).collect(),
        not_found,
    };
    Ok(HttpResponse::Ok().json(ok(batch)))
}

#[utoipa::path(tag = "cars", security(("bearer" = [])),
    params(("id" = String, Path, description = "The car's id")),
    responses((status = 200, body = Success<Analytics>), Errors))]
#[get("/cars/{id}/analytics")]
pub async fn analytics(
    auth: Bearer,
    st: web::Data<MarketplaceState>,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let (car, history) = ranking::analytics(&st, caller(&auth)?, car_id(&id)?).await?;
    Ok(HttpResponse::Ok().json(ok(Analytics::new(&car, history))))
}
