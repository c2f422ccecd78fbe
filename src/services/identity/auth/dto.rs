//! Wire shapes of /auth/* (OTP, sign-up, sign-in, PIN reset), as the spec names them.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use switchboard_entities::identity::user;
use utoipa::ToSchema;

// ---- requests ----

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OtpSendRequest {
    /// E.164 phone number (spaces, dashes, dots and brackets are accepted).
    #[schema(
        pattern = r"^\+[0-9 ().-]{6,31}$",
        max_length = 32,
        example = "+4917667111638"
    )]
    pub phone: String,
    #[schema(value_type = OtpPurpose)]
    pub purpose: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OtpVerifyRequest {
    #[schema(
        pattern = r"^\+[0-9 ().-]{6,31}$",
        max_length = 32,
        example = "+4917667111638"
    )]
    pub phone: String,
    /// The 6-digit code sent by SMS.
    #[schema(pattern = "^[0-9]{6}$", example = "482913")]
    pub code: String,
    #[schema(value_type = OtpPurpose)]
    pub purpose: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SignupRequest {
    pub temp_token: String,
    #[schema(pattern = "^[0-9]{4,6}$", example = "4826")]
    pub pin: String,
    /// 3–30 characters: letters (stored lowercase), digits and single underscores; starts
    /// with a letter, does not end with an underscore.
    #[schema(
        pattern = "^@?[A-Za-z][A-Za-z0-9_]{1,28}[A-Za-z0-9]$",
        example = "ada_lovelace"
    )]
    pub handle: String,
    #[serde(default)]
    #[schema(max_length = 100)]
    pub name: Option<String>,
    #[serde(default)]
    pub device_name: Option<String>,
    #[serde(default)]
    pub platform: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SigninRequest {
    #[schema(
        pattern = r"^\+[0-9 ().-]{6,31}$",
        max_length = 32,
        example = "+4917667111638"
    )]
    pub phone: String,
    #[schema(pattern = "^[0-9]{4,6}$", example = "4826")]
    pub pin: String,
    #[serde(default)]
    pub device_name: Option<String>,
    #[serde(default)]
    pub platform: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PinResetRequest {
    pub temp_token: String,
    #[schema(pattern = "^[0-9]{4,6}$", example = "4826")]
    pub new_pin: String,
}

/// What an OTP is for.
#[derive(ToSchema)]
#[expect(dead_code, reason = "an OpenAPI schema only: described, never built")]
#[schema(rename_all = "snake_case")]
pub enum OtpPurpose {
    Signup,
    PinReset,
}

// ---- responses ----

#[derive(Debug, Serialize, ToSchema)]
pub struct OtpSent {
    pub expires_in: i64,
    pub message: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct OtpVerified {
    pub verified: bool,
    pub temp_token: String,
    pub expires_in: i64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AuthUser {
    pub id: String,
    pub phone: String,
    pub handle: String,
    pub name: Option<String>,
    pub avatar_url: Option<String>,
    pub kyc_status: String,
    pub created_at: DateTime<Utc>,
}

impl From<&user::Model> for AuthUser {
    fn from(u: &user::Model) -> Self {
        Self {
            id: u.id.to_string(),
            phone: u.phone.clone(),
            handle: u.handle.clone(),
            name: u.name.clone(),
            avatar_url: u.avatar_url.clone(),
            kyc_status: u.kyc_status.to_string(),
            created_at: u.created_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AuthResponse {
    pub user: AuthUser,
    pub access_token: String,
    pub refresh_token: String,
    pub expires_in: i64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PinResetResponse {
    pub message: String,
    pub access_token: String,
    pub refresh_token: String,
    pub expires_in: i64,
}
