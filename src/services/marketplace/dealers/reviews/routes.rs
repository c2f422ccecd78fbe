//! Reviews of a dealer: anyone reads them (newest first); a signed-in customer writes one
//! per dealer.

use crate::core::json_body::Json;
use crate::services::marketplace::auth::user_id;
use crate::services::marketplace::auth::Verified;
use crate::services::marketplace::dealers::reviews::dto::*;
use crate::services::marketplace::dealers::reviews::store::{self, NewReview};
use crate::services::marketplace::dealers::store::dealer_id;
use crate::services::marketplace::domain::{self, required};
use crate::services::marketplace::error::Result;
use crate::services::marketplace::interactions::domain::rating;
use crate::services::marketplace::openapi::Errors;
use crate::services::marketplace::state::MarketplaceState;
use crate::services::marketplace::wire::*;
use actix_web::{get, post, web, HttpResponse};

#[utoipa::path(tag = "dealers", params(("id" = String, Path, description = "The dealer's id"),
    PageParams), responses((status = 200, body = List<Review>), Errors))]
#[get("/dealers/{id}/reviews")]
pub async fn list_reviews(
    st: web::Data<MarketplaceState>,
    id: web::Path<String>,
    paging: web::Query<PageParams>,
) -> Result<HttpResponse> {
    let page = store::list(&st, dealer_id(&id)?, paging.window()?).await?;
    Ok(HttpResponse::Ok().json(list(page)))
}

#[utoipa::path(tag = "dealers", request_body = ReviewRequest, security(("bearer" = [])),
    params(("id" = String, Path, description = "The dealer's id")),
    responses((status = 201, body = Success<Review>), Errors))]
#[post("/dealers/{id}/reviews")]
pub async fn review(
    auth: Verified,
    st: web::Data<MarketplaceState>,
    id: web::Path<String>,
    body: Json<ReviewRequest>,
) -> Result<HttpResponse> {
    let rating = rating(body.rating.as_ref())?;
    let comment = domain::text("comment", required("comment", &body.comment)?, 1000)?;
    let dealer = dealer_id(&id)?;
    let created =
        store::create(&st, dealer, user_id(&auth)?, NewReview { rating, comment }).await?;
    Ok(HttpResponse::Created().json(ok_with("Review added", created)))
}
