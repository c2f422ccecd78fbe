//! Wire shapes of dealers: applications, the spec's Dealer, and the profile's requests
//! (camelCase).

use crate::services::marketplace::wire::Scalar;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use switchboard_entities::marketplace::{dealer_application, dealer_profile, user};
use utoipa::{IntoParams, ToSchema};

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
            status: a.status.to_string(),
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
            is_approved: a.status == dealer_application::ApplicationStatus::Approved,
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
