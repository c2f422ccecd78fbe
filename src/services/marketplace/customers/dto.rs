//! Wire shapes of the customer's side: inquiries, favorites (camelCase).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use switchboard_entities::marketplace::{car, inquiry};
use utoipa::ToSchema;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InquiryRequest {
    pub car_id: Option<String>,
    /// The dealer who lists the car.
    pub dealer_id: Option<String>,
    /// 10 to 1000 characters.
    pub message: Option<String>,
    /// whatsapp, phone or email.
    pub contact_method: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FavoriteState {
    pub favorited: bool,
    pub favorite_count: i64,
}

/// The car an inquiry is about, in brief.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CarSummary {
    #[serde(rename = "_id")]
    pub id: String,
    pub make: String,
    pub model: String,
    pub year: i32,
    pub price: f64,
    pub status: String,
    /// The first image, if any.
    pub image: Option<String>,
}

impl From<car::Model> for CarSummary {
    fn from(c: car::Model) -> Self {
        let image = c
            .images
            .as_array()
            .and_then(|a| a.first())
            .and_then(|v| v.as_str())
            .map(str::to_owned);
        Self {
            id: c.id.to_string(),
            make: c.make,
            model: c.model,
            year: c.year,
            price: c.price,
            status: c.status.to_string(),
            image,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Inquiry {
    #[serde(rename = "_id")]
    pub id: String,
    pub car_id: String,
    pub dealer_id: String,
    pub customer_id: String,
    pub message: String,
    pub contact_method: String,
    /// new.
    pub status: String,
    pub created_at: DateTime<Utc>,
    /// Absent when the car is gone.
    pub car: Option<CarSummary>,
}

impl Inquiry {
    pub fn new(i: inquiry::Model, car: Option<car::Model>) -> Self {
        Self {
            id: i.id.to_string(),
            car_id: i.car_id.to_string(),
            dealer_id: i.dealer_id.to_string(),
            customer_id: i.customer_id.to_string(),
            message: i.message,
            contact_method: i.contact_method,
            status: i.status.to_string(),
            created_at: i.created_at,
            car: car.map(CarSummary::from),
        }
    }
}
