//! Wire shapes of the marketplace, named as the spec names them (camelCase).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use switchboard_entities::marketplace::user;
use utoipa::ToSchema;

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
    pub created_at: DateTime<Utc>,
}

impl From<user::Model> for User {
    fn from(u: user::Model) -> Self {
        Self {
            id: u.id.to_string(),
            phone: u.phone,
            email: u.email,
            name: u.name,
            role: u.role,
            is_phone_verified: u.is_phone_verified,
            created_at: u.created_at,
        }
    }
}

/// The spec's authentication result.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuthResult {
    pub user: User,
    /// Access JWT, valid 24 hours.
    pub token: String,
    /// Opaque, valid 30 days, single use (each refresh answers a new one).
    pub refresh_token: String,
}

/// Token refresh: the spec's `accessToken`, and the rotated refresh token.
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
