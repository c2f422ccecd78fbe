//! Wire shapes of a dealer's reviews (camelCase).

use crate::services::marketplace::wire::Scalar;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use switchboard_entities::marketplace::{dealer_review, user};
use utoipa::ToSchema;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReviewRequest {
    /// A whole number from 1 to 5.
    #[schema(value_type = Option<i64>)]
    pub rating: Option<Scalar>,
    /// 1 to 1000 characters.
    pub comment: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReviewAuthor {
    #[serde(rename = "_id")]
    pub id: String,
    pub name: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Review {
    #[serde(rename = "_id")]
    pub id: String,
    pub dealer_id: String,
    pub rating: i16,
    pub comment: String,
    pub author: ReviewAuthor,
    pub created_at: DateTime<Utc>,
}

impl Review {
    pub fn new(r: dealer_review::Model, author: Option<&user::Model>) -> Self {
        Self {
            id: r.id.to_string(),
            dealer_id: r.dealer_id.to_string(),
            rating: r.rating,
            comment: r.comment,
            author: ReviewAuthor {
                id: r.author_id.to_string(),
                name: author.and_then(|a| a.name.clone()),
            },
            created_at: r.created_at,
        }
    }
}
