//! Wire shapes of the identity service, as the spec names them.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize};
use switchboard_entities::identity::{session, user};
use utoipa::ToSchema;

/// `{success: true, data}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Success<T: ToSchema> {
    pub success: bool,
    pub data: T,
}

pub fn ok<T: ToSchema>(data: T) -> Success<T> {
    Success {
        success: true,
        data,
    }
}

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

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RefreshRequest {
    pub refresh_token: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LogoutRequest {
    pub refresh_token: String,
}

/// Only the fields sent change; `avatar_url: null` clears the avatar.
#[derive(Debug, Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct UpdateMeRequest {
    #[serde(default)]
    #[schema(min_length = 1, max_length = 100)]
    pub name: Option<String>,
    #[serde(default)]
    #[schema(max_length = 500)]
    pub bio: Option<String>,
    #[serde(default, deserialize_with = "present")]
    /// An http(s) URL; null or a blank string clears the avatar.
    #[schema(value_type = Option<String>, nullable, pattern = r"^(\s*|https?://\S+)$", max_length = 2048)]
    pub avatar_url: Option<Option<String>>,
    /// ISO 639-1 code, e.g. `en`.
    #[serde(default)]
    #[schema(pattern = "^[A-Za-z]{2}$", example = "en")]
    pub language: Option<String>,
}

/// Distinguishes a field sent as `null` (Some(None)) from one not sent (None).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteMeRequest {
    #[schema(pattern = "^[0-9]{4,6}$", example = "4826")]
    pub pin: String,
    /// Must be exactly `DELETE MY ACCOUNT`.
    #[schema(pattern = "^DELETE MY ACCOUNT$")]
    pub confirmation: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HandleChangeRequest {
    #[schema(
        pattern = "^@?[A-Za-z][A-Za-z0-9_]{1,28}[A-Za-z0-9]$",
        example = "ada_lovelace"
    )]
    pub new_handle: String,
    #[schema(pattern = "^[0-9]{4,6}$", example = "4826")]
    pub pin: String,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct HandleCheckQuery {
    #[param(
        pattern = "^@?[A-Za-z][A-Za-z0-9_]{1,28}[A-Za-z0-9]$",
        example = "ada_lovelace"
    )]
    pub handle: String,
}

/// What an OTP is for.
#[derive(ToSchema)]
#[allow(dead_code)]
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
            kyc_status: u.kyc_status.clone(),
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

#[derive(Debug, Serialize, ToSchema)]
pub struct TokenPair {
    pub access_token: String,
    pub refresh_token: String,
    pub expires_in: i64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MessageResponse {
    pub message: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct LogoutAllResponse {
    pub message: String,
    pub sessions_revoked: u64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct User {
    pub id: String,
    pub phone: String,
    pub phone_verified: bool,
    pub handle: String,
    pub name: Option<String>,
    pub avatar_url: Option<String>,
    pub bio: String,
    pub country: String,
    pub language: String,
    pub kyc_status: String,
    #[serde(serialize_with = "crate::core::clock::serialize_utc")]
    pub created_at: DateTime<Utc>,
    #[serde(serialize_with = "crate::core::clock::serialize_utc")]
    pub updated_at: DateTime<Utc>,
}

impl From<&user::Model> for User {
    fn from(u: &user::Model) -> Self {
        Self {
            id: u.id.to_string(),
            phone: u.phone.clone(),
            phone_verified: u.phone_verified,
            handle: u.handle.clone(),
            name: u.name.clone(),
            avatar_url: u.avatar_url.clone(),
            bio: u.bio.clone(),
            country: u.country.clone(),
            language: u.language.clone(),
            kyc_status: u.kyc_status.clone(),
            created_at: u.created_at,
            updated_at: u.updated_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PublicProfile {
    pub id: String,
    pub handle: String,
    pub name: Option<String>,
    pub avatar_url: Option<String>,
    pub bio: String,
    pub kyc_status: String,
    pub created_at: DateTime<Utc>,
}

impl From<&user::Model> for PublicProfile {
    fn from(u: &user::Model) -> Self {
        Self {
            id: u.id.to_string(),
            handle: u.handle.clone(),
            name: u.name.clone(),
            avatar_url: u.avatar_url.clone(),
            bio: u.bio.clone(),
            kyc_status: u.kyc_status.clone(),
            created_at: u.created_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DeletedResponse {
    pub message: String,
    pub deleted_at: DateTime<Utc>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct HandleCheck {
    pub handle: String,
    pub available: bool,
    /// `taken` or `reserved`; only when unavailable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct HandleChanged {
    pub old_handle: String,
    pub new_handle: String,
    pub next_change_available: DateTime<Utc>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Session {
    pub id: String,
    pub device_name: String,
    pub platform: String,
    pub ip_address: String,
    pub last_used_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
    pub current: bool,
}

impl Session {
    pub fn from_model(s: &session::Model, current: uuid::Uuid) -> Self {
        Self {
            id: s.id.to_string(),
            device_name: s.device_name.clone(),
            platform: s.platform.clone(),
            ip_address: crate::core::client::mask_ip(&s.ip_address),
            last_used_at: s.last_used_at,
            created_at: s.created_at,
            current: s.id == current,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct SessionList {
    pub sessions: Vec<Session>,
    pub total: u64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct KycStatus {
    /// `none`, `pending` or `verified`.
    pub status: String,
    pub verified_at: Option<DateTime<Utc>>,
    pub level: Option<String>,
    pub documents: Vec<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct KycInitiated {
    pub verification_url: String,
    pub expires_in: i64,
}
