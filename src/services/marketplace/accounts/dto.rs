//! Wire shapes of the accounts (`/auth/*`), camelCase as the spec names them.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use switchboard_entities::marketplace::user;
use utoipa::ToSchema;

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
