//! The AI helpers over HTTP: listing text and description enhancement for dealers; natural-
//! language search, recommendations, pricing insights, descriptions and lifestyle-quiz
//! recommendations for anyone. Rate-limited as `ai` (limits.rs).

use crate::core::auth::{Bearer, DealerRole};
use crate::core::json_body::Json;
use crate::services::marketplace::ai::dto::*;
use crate::services::marketplace::ai::recommend::{self, Wishes};
use crate::services::marketplace::ai::store::this_year;
use crate::services::marketplace::ai::{pricing, search};
use crate::services::marketplace::cars::store::car_id;
use crate::services::marketplace::domain;
use crate::services::marketplace::error::{MarketplaceError, Result};
use crate::services::marketplace::openapi::Errors;
use crate::services::marketplace::state::MarketplaceState;
use crate::services::marketplace::wire::{ok, PageParams, Success};
use actix_web::{post, web, HttpResponse};

#[utoipa::path(tag = "ai", security(("bearer" = [])), request_body = GenerateListingRequest,
    responses((status = 200, body = Success<ListingTextData>), Errors))]
#[post("/ai/generate-listing")]
pub async fn generate_listing(
    _dealer: Bearer<DealerRole>,
    st: web::Data<MarketplaceState>,
    body: Json<GenerateListingRequest>,
) -> Result<HttpResponse> {
    let facts = body.facts(this_year(&st))?;
    let text = st.providers.car_writer.write_listing(&facts).await;
    Ok(HttpResponse::Ok().json(ok(ListingTextData {
        description: text.description,
        highlights: text.highlights,
    })))
}

#[utoipa::path(tag = "ai", security(("bearer" = [])), request_body = EnhanceRequest,
    responses((status = 200, body = Success<DescriptionData>), Errors))]
#[post("/ai/enhance-description")]
pub async fn enhance_description(
    _dealer: Bearer<DealerRole>,
    st: web::Data<MarketplaceState>,
    body: Json<EnhanceRequest>,
) -> Result<HttpResponse> {
    let (description, facts) = body.parse(this_year(&st))?;
    let description = st.providers.car_writer.enhance(&description, &facts).await;
    Ok(HttpResponse::Ok().json(ok(DescriptionData { description })))
}

#[utoipa::path(tag = "ai", request_body = NaturalSearchRequest,
    responses((status = 200, body = Success<NaturalSearchData>), Errors))]
#[post("/ai/search-natural-language")]
pub async fn search_natural_language(
    st: web::Data<MarketplaceState>,
    body: Json<NaturalSearchRequest>,
) -> Result<HttpResponse> {
    let query = domain::text("query", domain::required("query", &body.query)?, 500)?;
    let window = PageParams::of(None, body.limit).window()?;
    let found = search::natural_language(&st, &query, window).await?;
    Ok(HttpResponse::Ok().json(ok(NaturalSearchData {
        interpreted_query: found.interpreted,
        applied_query: found.applied,
        relaxed: found.relaxed,
        total_results: found.page.total,
        results: found.page.items.iter().map(MatchedCar::from).collect(),
    })))
}

async fn recommendations_for(st: &MarketplaceState, wishes: Wishes) -> Result<HttpResponse> {
    let (scored, considered) = recommend::recommend(st, &wishes).await?;
    let p = wishes.profile;
    Ok(HttpResponse::Ok().json(ok(RecommendationsData {
        profile: ProfileData {
            lifestyles: p.labels,
            body_types: p.bodies,
            fuel_types: p.fuels,
            features: p.features,
        },
        considered,
        recommendations: scored
            .into_iter()
            .map(|s| Recommendation {
                car: MatchedCar::from(&s.car),
                score: s.score,
                reasons: s.reasons,
            })
            .collect(),
    })))
}

#[utoipa::path(tag = "ai", request_body = RecommendationsRequest,
    responses((status = 200, body = Success<RecommendationsData>), Errors))]
#[post("/ai/recommendations")]
pub async fn recommendations(
    st: web::Data<MarketplaceState>,
    body: Json<RecommendationsRequest>,
) -> Result<HttpResponse> {
    recommendations_for(&st, body.wishes()?).await
}

#[utoipa::path(tag = "ai", request_body = LifestyleQuiz,
    responses((status = 200, body = Success<RecommendationsData>), Errors))]
#[post("/ai/lifestyle-recommendations")]
pub async fn lifestyle_recommendations(
    st: web::Data<MarketplaceState>,
    body: Json<LifestyleQuiz>,
) -> Result<HttpResponse> {
    recommendations_for(&st, body.wishes()?).await
}

#[utoipa::path(tag = "ai", request_body = PricingRequest,
    responses((status = 200, body = Success<PricingData>), Errors))]
#[post("/ai/pricing-insights")]
pub async fn pricing_insights(
    st: web::Data<MarketplaceState>,
    body: Json<PricingRequest>,
) -> Result<HttpResponse> {
    let raw = body.car_id.as_deref().ok_or(MarketplaceError::Validation {
        field: "carId",
        value: None,
        message: "carId is required".into(),
    })?;
    let i = pricing::insights(&st, car_id(raw)?).await?;
    let f = &i.facts;
    Ok(HttpResponse::Ok().json(ok(PricingData {
        car_id: i.car.id.to_string(),
        current_price: f.current_price,
        market_average: f.market_average,
        difference: f.difference(),
        difference_percent: f.difference_percent(),
        comparable_count: f.comparables,
        minimum_comparables: f.minimum,
        compared_by: pricing::compared_by(i.basis, f.market_average.is_some()),
        compared_years: [f.years.0, f.years.1],
        compared_mileage_km: [f.mileage_km.0, f.mileage_km.1],
        price_analysis: i.words.analysis,
        similar_cars: i
            .similar
            .iter()
            .map(|c| SimilarCar {
                id: c.id.to_string(),
                make: c.make.clone(),
                model: c.model.clone(),
                year: c.year,
                price: c.price,
            })
            .collect(),
        recommendation: i.words.recommendation,
    })))
}

#[utoipa::path(tag = "ai", request_body = DescribeRequest,
    responses((status = 200, body = Success<DescriptionData>), Errors))]
#[post("/ai/generate-car-description")]
pub async fn generate_car_description(
    st: web::Data<MarketplaceState>,
    body: Json<DescribeRequest>,
) -> Result<HttpResponse> {
    let facts = body.facts(this_year(&st))?;
    let description = st.providers.car_writer.describe(&facts).await;
    Ok(HttpResponse::Ok().json(ok(DescriptionData { description })))
}
