//! Wire shapes of the marketplace, named as the spec names them (camelCase).

use crate::core::error::ApiError;
use crate::core::page::{Bounds, Page, PageNumbers, PageQuery, Window};
use crate::services::marketplace::cars::domain::Scalar;
use crate::services::marketplace::error::MarketplaceError;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use switchboard_entities::marketplace::{dealer_application, dealer_profile, dealer_review, user};
use utoipa::{IntoParams, ToSchema};

/// `{success: true, message?, data}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Success<T: ToSchema> {
    pub success: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    pub data: T,
}

pub fn ok<T: ToSchema>(data: T) -> Success<T> {
    Success {
        success: true,
        message: None,
        data,
    }
}

pub fn ok_with<T: ToSchema>(message: impl Into<String>, data: T) -> Success<T> {
    Success {
        success: true,
        message: Some(message.into()),
        data,
    }
}

/// `{success: false, error, message, details?, retryAfter?}`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ErrorEnvelope {
    pub success: bool,
    /// A snake_case code (docs/decisions.md lists each and who answers it).
    pub error: String,
    pub message: String,
    /// For validation_error: `{field, value}`.
    #[schema(value_type = Option<Object>)]
    pub details: Option<serde_json::Value>,
    /// Seconds to wait, on rate_limit_exceeded.
    pub retry_after: Option<i64>,
}

/// An empty `data` object.
#[derive(Debug, Serialize, ToSchema)]
pub struct Empty {}

// ---- requests (required fields are options so that a missing one is named) ----

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignupRequest {
    /// E.164, e.g. +4917612345678.
    pub phone: Option<String>,
    pub email: Option<String>,
    /// At least 6 characters.
    pub password: Option<String>,
    pub name: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PhoneOtpRequest {
    pub phone: Option<String>,
    pub otp: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoginRequest {
    pub phone: Option<String>,
    pub password: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RefreshRequest {
    pub refresh_token: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PhoneRequest {
    pub phone: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResetPasswordRequest {
    /// The temporary token of verify-forgot-password.
    pub token: Option<String>,
    pub new_password: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResendOtpRequest {
    pub phone: Option<String>,
    /// signup or password_reset.
    #[serde(rename = "type")]
    pub kind: Option<String>,
}

// ---- responses ----

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct User {
    #[serde(rename = "_id")]
    pub id: String,
    pub phone: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// user, dealer or admin.
    pub role: String,
    pub is_phone_verified: bool,
    #[serde(serialize_with = "crate::core::clock::serialize_utc")]
    pub created_at: DateTime<Utc>,
}

impl From<&user::Model> for User {
    fn from(u: &user::Model) -> Self {
        Self {
            id: u.id.to_string(),
            phone: u.phone.clone(),
            email: u.email.clone(),
            name: u.name.clone(),
            role: u.role.clone(),
            is_phone_verified: u.is_phone_verified,
            created_at: u.created_at,
        }
    }
}

impl From<user::Model> for User {
    fn from(u: user::Model) -> Self {
        Self::from(&u)
    }
}

/// The spec's authentication result.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuthResult {
    pub user: User,
    /// Access JWT, valid 24 hours.
    pub token: String,
    /// Opaque, valid 30 days from issue: used again and again with /auth/refresh-token
    /// (single use when `rotate_refresh_tokens` is on).
    pub refresh_token: String,
}

/// Token refresh: the spec's `accessToken`, and the refresh token to use next (the same one
/// unless `rotate_refresh_tokens` is on).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Refreshed {
    pub access_token: String,
    pub refresh_token: String,
}

/// The temporary token that reset-password takes.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResetToken {
    pub token: String,
    /// Seconds until it expires.
    pub expires_in: i64,
}

/// `{success: true, data: [...], pagination}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct List<T: ToSchema> {
    pub success: bool,
    pub data: Vec<T>,
    pub pagination: PageNumbers,
}

pub fn list<T: ToSchema>(page: Page<T>) -> List<T> {
    List {
        success: true,
        pagination: page.page_numbers(),
        data: page.items,
    }
}

/// The spec's page parameters: `page` from 1 (default 1), `limit` (default 10, at most 100).
/// Taken as sent (a query carries text) and read in [`PageParams::window`], so `page=abc`
/// is refused naming `page`.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageParams {
    #[param(value_type = Option<u64>, minimum = 1, maximum = 1_000_000)]
    pub page: Option<Scalar>,
    #[param(value_type = Option<u64>, minimum = 1, maximum = 100)]
    pub limit: Option<Scalar>,
}

/// A count parameter (page, limit) as sent, read as a whole number that names its field.
pub fn count(field: &'static str, raw: Option<&Scalar>) -> Result<Option<u64>, MarketplaceError> {
    raw.map(|v| {
        let n = v.integer(field)?;
        u64::try_from(n).map_err(|_| {
            MarketplaceError::invalid(field, &n.to_string(), format!("{field} must be at least 1"))
        })
    })
    .transpose()
}

impl PageParams {
    /// Numbers a body sent as numbers.
    pub fn of(page: Option<u64>, limit: Option<u64>) -> Self {
        Self {
            page: page.map(Scalar::from),
            limit: limit.map(Scalar::from),
        }
    }

    pub fn window(&self) -> Result<Window, ApiError> {
        PageQuery {
            limit: count("limit", self.limit.as_ref())?,
            offset: None,
            page: Some(count("page", self.page.as_ref())?.unwrap_or(1)),
        }
        .window(Bounds::new(10, 100))
    }
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DealerApplicationRequest {
    /// 1 to 100 characters.
    pub business_name: Option<String>,
    /// 1 to 200 characters.
    pub location: Option<String>,
    /// E.164.
    pub business_phone: Option<String>,
    /// http(s) URL.
    pub website: Option<String>,
    /// At most 2000 characters.
    pub description: Option<String>,
}

/// The spec's `application` object.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApplicationSummary {
    pub business_name: String,
    /// pending or approved.
    pub status: String,
    pub submitted_at: DateTime<Utc>,
}

impl From<&dealer_application::Model> for ApplicationSummary {
    fn from(a: &dealer_application::Model) -> Self {
        Self {
            business_name: a.business_name.clone(),
            status: a.status.clone(),
            submitted_at: a.submitted_at,
        }
    }
}

/// The spec's dealer application status.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApplicationStatus {
    pub has_application: bool,
    /// none, pending or approved.
    pub application_status: String,
    pub is_dealer: bool,
    pub can_apply: bool,
    pub application: Option<ApplicationSummary>,
}

/// The spec's Dealer, as far as this increment stores it (the applicant is the dealer: `_id`
/// is the user's id).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Dealer {
    #[serde(rename = "_id")]
    pub id: String,
    pub name: String,
    /// null when unset, as every unset field of a dealer.
    pub email: Option<String>,
    /// To the public: the business phone, or the login phone only if the dealer chose to
    /// publish it (`publishLoginPhone`), else null. To the dealer and administrators: the
    /// login phone.
    pub phone: Option<String>,
    pub location: String,
    /// Always `dealer`.
    #[serde(rename = "type")]
    pub kind: String,
    pub is_approved: bool,
    /// Average of the reviews' ratings (0 without reviews).
    pub rating: f64,
    pub review_count: i32,
    pub total_sales: i64,
    pub joined_date: DateTime<Utc>,
    /// monday to sunday; null until the dealer sets them.
    #[schema(value_type = Option<Object>)]
    pub business_hours: Option<serde_json::Value>,
    pub website: Option<String>,
    pub description: Option<String>,
    pub business_phone: Option<String>,
    /// Whether the public sees the login phone when no business phone is set (false unless
    /// the dealer opts in through `PUT /dealers/profile/business-info`).
    pub publish_login_phone: bool,
    /// Whether the dealer (applicant) verified their login phone.
    pub is_phone_verified: bool,
}

/// Who reads a dealer: the public is shown the business phone, never the login phone
/// unless the dealer chose so; the dealer and administrators see the login phone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    Public,
    OwnerOrAdmin,
}

impl Dealer {
    pub fn new(u: user::Model, a: dealer_application::Model) -> Self {
        Self {
            id: u.id.to_string(),
            name: a.business_name,
            email: u.email,
            phone: Some(u.phone),
            location: a.location,
            kind: "dealer".into(),
            is_approved: a.status == "approved",
            rating: 0.0,
            review_count: 0,
            total_sales: 0,
            joined_date: a.reviewed_at.unwrap_or(a.submitted_at),
            business_hours: None,
            website: a.website,
            description: a.description,
            business_phone: a.business_phone,
            publish_login_phone: false,
            is_phone_verified: u.is_phone_verified,
        }
    }

    /// An approved dealer, from the profile the approval created, as `audience` sees it.
    pub fn approved(u: user::Model, p: dealer_profile::Model, audience: Audience) -> Self {
        let rating = if p.review_count > 0 {
            p.rating_sum as f64 / f64::from(p.review_count)
        } else {
            0.0
        };
        let phone = match audience {
            Audience::OwnerOrAdmin => Some(u.phone),
            Audience::Public => p
                .business_phone
                .clone()
                .or_else(|| p.publish_login_phone.then_some(u.phone)),
        };
        Self {
            id: u.id.to_string(),
            name: p.name,
            email: u.email,
            phone,
            location: p.location,
            kind: "dealer".into(),
            is_approved: true,
            // Two decimals are what a star average is read to.
            rating: (rating * 100.0).round() / 100.0,
            review_count: p.review_count,
            total_sales: i64::from(p.total_sales),
            joined_date: p.joined_date,
            business_hours: p.business_hours,
            website: p.website,
            description: p.description,
            business_phone: p.business_phone,
            publish_login_phone: p.publish_login_phone,
            is_phone_verified: u.is_phone_verified,
        }
    }
}

/// `GET /dealers` query: the spec's `type` (only `dealer`), `isApproved` and page.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct DealerListParams {
    /// `dealer` (the only kind).
    #[serde(rename = "type")]
    #[param(rename = "type")]
    pub kind: Option<String>,
    /// true (default): the approved dealers; false: none (applicants are listed to
    /// administrators at /dealers/admin/pending).
    #[param(value_type = Option<bool>)]
    pub is_approved: Option<String>,
    #[param(value_type = Option<u64>, minimum = 1, maximum = 1_000_000)]
    pub page: Option<Scalar>,
    #[param(value_type = Option<u64>, minimum = 1, maximum = 100)]
    pub limit: Option<Scalar>,
}

/// `PUT /dealers/profile/me`: any of the three; an absent one is kept.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProfileRequest {
    /// 1 to 100 characters.
    pub name: Option<String>,
    /// 1 to 200 characters.
    pub location: Option<String>,
    /// 1 to 2000 characters.
    pub description: Option<String>,
}

/// `PUT /dealers/profile/business-hours`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BusinessHoursRequest {
    /// Any of monday to sunday, each a text such as `09:00-18:00`, `9:00 AM - 6:00 PM` or
    /// `Closed` (at most 100 characters); a day left out is unset.
    #[schema(value_type = Option<Object>)]
    pub business_hours: Option<serde_json::Value>,
}

/// `PUT /dealers/profile/business-info`: any of the three; an absent one is kept.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BusinessInfoRequest {
    /// http(s) URL.
    pub website: Option<String>,
    /// 1 to 2000 characters.
    pub description: Option<String>,
    /// E.164.
    pub business_phone: Option<String>,
    /// Whether `GET /dealers` may show the login phone when no business phone is set.
    pub publish_login_phone: Option<bool>,
}

/// A dealer's business hours (the seven days, or an empty object until set).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BusinessHoursView {
    #[schema(value_type = Object)]
    pub business_hours: serde_json::Value,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReviewRequest {
    /// A whole number from 1 to 5.
    #[schema(value_type = Option<i64>)]
    pub rating: Option<crate::services::marketplace::cars::domain::Scalar>,
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
