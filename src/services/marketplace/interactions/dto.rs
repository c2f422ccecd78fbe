//! Wire shapes of the interactions: likes, views, comments, shares, test drives (camelCase).

use crate::services::marketplace::clock_text::{hhmm, read_clock};
use crate::services::marketplace::interactions::store::Thread;
use crate::services::marketplace::wire::Scalar;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use switchboard_entities::marketplace::{car_comment, test_drive, user};
use utoipa::ToSchema;

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
            status: t.status.to_string(),
            created_at: t.created_at,
        }
    }
}
