//! Wire shapes of the interactions, customers and car statistics (camelCase).

use crate::services::marketplace::cars::dto::Car;
use crate::services::marketplace::clock_text::{hhmm, read_clock};
use crate::services::marketplace::interactions::store::Thread;
use crate::services::marketplace::wire::Scalar;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use switchboard_entities::marketplace::{car, car_comment, inquiry, test_drive, user};
use utoipa::{IntoParams, ToSchema};

// ---- requests (required fields are options so that a missing one is named) ----

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CommentRequest {
    /// 1 to 1000 characters.
    pub text: Option<String>,
    /// A whole number from 1 to 5.
    pub rating: Option<Scalar>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReplyRequest {
    /// 1 to 1000 characters.
    pub text: Option<String>,
}

#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShareRequest {
    /// Where it was shared, e.g. whatsapp, facebook, link (1 to 30 of a-z, 0-9, _ and -).
    pub channel: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TestDriveRequest {
    /// YYYY-MM-DD, today (UTC) or later, within a year.
    pub preferred_date: Option<String>,
    /// Clock text as the customer writes it: 14:30, 9:30, 14:30:00, 2:30 PM.
    pub preferred_time: Option<String>,
    /// At most 1000 characters.
    pub message: Option<String>,
}

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

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatsBatchRequest {
    /// 1 to 100 car ids.
    pub car_ids: Option<Vec<String>>,
}

/// `limit` of `GET /cars/trending`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TrendingParams {
    /// Default 10, at most 50.
    #[param(value_type = Option<u64>, minimum = 1, maximum = 50)]
    pub limit: Option<Scalar>,
}

// ---- responses ----

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LikeState {
    pub liked: bool,
    pub like_count: i64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ViewCount {
    /// Views counted once per viewer and UTC day.
    pub view_count: i64,
    /// Viewers today (UTC).
    pub today_count: u64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ViewResult {
    pub view_count: i64,
    /// False when this viewer was already counted today, or is the owner.
    pub counted: bool,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShareCount {
    pub share_count: i64,
}

/// A comment, or a reply (`parentId`, no rating, no replies of its own).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Comment {
    #[serde(rename = "_id")]
    pub id: String,
    pub car_id: String,
    pub user_id: String,
    pub user_name: Option<String>,
    pub text: String,
    pub rating: Option<i32>,
    pub parent_id: Option<String>,
    pub like_count: i64,
    pub created_at: DateTime<Utc>,
    /// Replies, oldest first (on top-level comments).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(no_recursion)]
    pub replies: Option<Vec<Comment>>,
}

impl Comment {
    pub fn new(c: car_comment::Model, users: &[user::Model]) -> Self {
        Self {
            id: c.id.to_string(),
            car_id: c.car_id.to_string(),
            user_id: c.user_id.to_string(),
            user_name: users
                .iter()
                .find(|u| u.id == c.user_id)
                .and_then(|u| u.name.clone()),
            text: c.text,
            rating: c.rating,
            parent_id: c.parent_id.map(|p| p.to_string()),
            like_count: c.like_count,
            created_at: c.created_at,
            replies: None,
        }
    }

    pub fn thread(t: Thread, users: &[user::Model]) -> Self {
        let replies = t.replies.into_iter().map(|r| Self::new(r, users)).collect();
        Self {
            replies: Some(replies),
            ..Self::new(t.comment, users)
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TestDrive {
    #[serde(rename = "_id")]
    pub id: String,
    pub car_id: String,
    pub user_id: String,
    pub preferred_date: String,
    /// As the customer wrote it.
    pub preferred_time: String,
    /// The clock time `preferredTime` reads as (HH:MM, 24-hour), null when it names none.
    pub preferred_clock: Option<String>,
    pub message: String,
    /// pending.
    pub status: String,
    pub created_at: DateTime<Utc>,
}

impl From<test_drive::Model> for TestDrive {
    fn from(t: test_drive::Model) -> Self {
        Self {
            id: t.id.to_string(),
            car_id: t.car_id.to_string(),
            user_id: t.user_id.to_string(),
            preferred_date: t.preferred_date,
            preferred_clock: read_clock(&t.preferred_time).map(hhmm),
            preferred_time: t.preferred_time,
            message: t.message,
            status: t.status,
            created_at: t.created_at,
        }
    }
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
            status: c.status,
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
            status: i.status,
            created_at: i.created_at,
            car: car.map(CarSummary::from),
        }
    }
}

/// A trending car: the Car and its score.
#[derive(Debug, Serialize, ToSchema)]
pub struct TrendingCar {
    #[serde(flatten)]
    pub car: Car,
    /// Σ points × exp(-age_hours / 48) over the last 7 UTC days.
    pub score: f64,
}

/// One car's counters. Views, likes, comments, favorites and shares are public (every Car
/// and the interaction answers show them); inquiries are the seller's business.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CarStats {
    pub car_id: String,
    pub views: i64,
    pub likes: i64,
    pub comments: i64,
    pub favorites: i64,
    /// Null unless the caller is the car's seller or an administrator.
    pub inquiries: Option<i64>,
    pub shares: i64,
}

impl CarStats {
    /// `c`'s counters as `owner` (its seller or an administrator asking) or anyone else
    /// may see them.
    pub fn of(c: &car::Model, owner: bool) -> Self {
        Self {
            car_id: c.id.to_string(),
            views: c.view_count,
            likes: c.like_count,
            comments: c.comment_count,
            favorites: c.favorite_count,
            inquiries: owner.then_some(c.inquiry_count),
            shares: c.share_count,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatsBatch {
    /// In the order asked, each id once.
    pub stats: Vec<CarStats>,
    /// Ids asked for that name no car (malformed ones included), as sent.
    pub not_found: Vec<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DayCount {
    /// YYYY-MM-DD (UTC).
    pub date: String,
    pub count: i64,
}

/// The spec's car analytics, with the car's other counters.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Analytics {
    pub views: i64,
    pub inquiries: i64,
    pub favorites: i64,
    pub likes: i64,
    pub comments: i64,
    pub shares: i64,
    /// The last 30 UTC days, oldest first, days without views as 0.
    pub view_history: Vec<DayCount>,
}

impl Analytics {
    pub fn new(c: &car::Model, history: Vec<(String, i64)>) -> Self {
        Self {
            views: c.view_count,
            inquiries: c.inquiry_count,
            favorites: c.favorite_count,
            likes: c.like_count,
            comments: c.comment_count,
            shares: c.share_count,
            view_history: history
                .into_iter()
                .map(|(date, count)| DayCount { date, count })
                .collect(),
        }
    }
}
