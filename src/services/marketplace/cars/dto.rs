//! Wire shapes of the car listings (the spec's Car, camelCase).

use crate::core::page::{Page, PageNumbers};
use crate::services::marketplace::cars::filters::RawFilters;
use crate::services::marketplace::cars::search::Interpretation;
use crate::services::marketplace::wire::PageParams;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use switchboard_entities::marketplace::car;
use utoipa::{IntoParams, ToSchema};

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Car {
    #[serde(rename = "_id")]
    pub id: String,
    pub make: String,
    pub model: String,
    pub year: i32,
    pub price: f64,
    /// Kilometres.
    pub mileage: i64,
    pub fuel_type: String,
    pub transmission: String,
    pub body_type: String,
    pub color: String,
    pub description: String,
    pub images: Vec<String>,
    pub videos: Vec<String>,
    pub features: Vec<String>,
    pub condition: String,
    /// active, sold or reserved.
    pub status: String,
    pub seller_id: String,
    /// dealer or private.
    pub seller_type: String,
    pub view_count: i64,
    pub like_count: i64,
    pub comment_count: i64,
    pub favorite_count: i64,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

fn strings(v: serde_json::Value) -> Vec<String> {
    serde_json::from_value(v).unwrap_or_default()
}

impl From<car::Model> for Car {
    fn from(c: car::Model) -> Self {
        Self {
            id: c.id.to_string(),
            make: c.make,
            model: c.model,
            year: c.year,
            price: c.price,
            mileage: c.mileage,
            fuel_type: c.fuel_type,
            transmission: c.transmission,
            body_type: c.body_type,
            color: c.color,
            description: c.description,
            images: strings(c.images),
            videos: strings(c.videos),
            features: strings(c.features),
            condition: c.condition,
            status: c.status.to_string(),
            seller_id: c.seller_id.to_string(),
            seller_type: c.seller_type,
            view_count: c.view_count,
            like_count: c.like_count,
            comment_count: c.comment_count,
            favorite_count: c.favorite_count,
            created_at: c.created_at,
            updated_at: c.updated_at,
        }
    }
}

/// `sort` of `GET /cars`: up to three of `price`, `year`, `mileage`, `createdAt`, each with
/// `:asc` or `:desc` (default asc), comma-separated; newest first when absent.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SortParam {
    #[param(example = "price:asc")]
    pub sort: Option<String>,
}

/// `status` of `GET /cars/my-cars`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StatusParam {
    /// active, sold or reserved; all when absent.
    pub status: Option<String>,
}

/// The body of `POST /cars/advanced-search`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdvancedSearchRequest {
    /// Free text over make, model, description and features; misspellings are tolerated.
    pub query: Option<String>,
    /// The filters of `GET /cars`, numbers as JSON numbers or text.
    pub filters: Option<RawFilters>,
    /// As `sort` of `GET /cars`; by relevance when absent and a query is given.
    pub sort_by: Option<String>,
    #[schema(minimum = 1, maximum = 1_000_000)]
    pub page: Option<u64>,
    #[schema(minimum = 1, maximum = 100)]
    pub limit: Option<u64>,
}

impl AdvancedSearchRequest {
    pub fn paging(&self) -> PageParams {
        PageParams::of(self.page, self.limit)
    }
}

/// Search results: the cars, the page, and how the query was read.
#[derive(Debug, Serialize, ToSchema)]
pub struct SearchResults {
    pub success: bool,
    pub data: Vec<Car>,
    pub pagination: PageNumbers,
    /// The query's words and the listed words each may stand for; absent without a query.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search: Option<Interpretation>,
}

impl SearchResults {
    pub fn new(page: Page<car::Model>, search: Option<Interpretation>) -> Self {
        Self {
            success: true,
            pagination: page.page_numbers(),
            data: page.items.into_iter().map(Car::from).collect(),
            search,
        }
    }
}
