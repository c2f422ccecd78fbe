//! Wire shapes of /users/*: profiles, handles, deletion.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize};
use switchboard_entities::identity::user;
use utoipa::ToSchema;

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
            kyc_status: u.kyc_status.to_string(),
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
            kyc_status: u.kyc_status.to_string(),
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
