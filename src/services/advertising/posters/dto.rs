//! Posters' wire shapes.

use super::super::places::data;
use serde::{Deserialize, Deserializer, Serialize};
use switchboard_entities::advertising::{device_token, poster};
use utoipa::ToSchema;

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RequestOtp {
    /// E.164, e.g. `+447700900123`.
    pub phone_number: Option<String>,
    /// A country's id or its alpha-2 code.
    pub country_id: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VerifyOtp {
    pub phone_number: Option<String>,
    /// The six digits sent by SMS.
    pub code: Option<String>,
}

/// `Some(None)` for an explicit `null`, `None` when the key is absent.
pub fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

/// A profile change: absent keys stay; `null` clears `email` or `avatarUrl`.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateProfile {
    /// 1 to 80 characters.
    pub name: Option<String>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub email: Option<Option<String>>,
    /// An https URL.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub avatar_url: Option<Option<String>>,
    /// A country's id or its alpha-2 code.
    pub country_id: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PosterView {
    pub id: String,
    pub phone_number: String,
    pub name: Option<String>,
    pub email: Option<String>,
    pub avatar_url: Option<String>,
    /// The country's id.
    pub country_id: String,
    /// The country's ISO 3166-1 alpha-2 code.
    pub country_code: String,
    pub referral_code: String,
    /// `active` or `banned`.
    pub status: String,
    /// `none`, `pending`, `verified` or `rejected`.
    pub kyc_status: String,
    pub created_at: chrono::DateTime<chrono::Utc>,
}

impl From<&poster::Model> for PosterView {
    fn from(p: &poster::Model) -> Self {
        Self {
            id: p.id.to_string(),
            phone_number: p.phone.clone(),
            name: p.name.clone(),
            email: p.email.clone(),
            avatar_url: p.avatar_url.clone(),
            country_id: data::country(&p.country)
                .map_or_else(|| p.country.clone(), |c| c.id.to_string()),
            country_code: p.country.clone(),
            referral_code: p.referral_code.clone(),
            status: p.status.as_str().to_owned(),
            kyc_status: p.kyc_status.as_str().to_owned(),
            created_at: p.created_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct SignedIn {
    pub user: PosterView,
    /// A bearer token (`Authorization: Bearer …`).
    pub token: String,
}

#[derive(Serialize, ToSchema)]
pub struct Sent {
    pub message: String,
    /// Seconds until the code expires.
    #[serde(rename = "expiresIn")]
    pub expires_in: i64,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReferralCode {
    pub referral_code: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DeviceTokenRequest {
    /// The push token the device got from its platform (1 to 4096 characters).
    pub token: Option<String>,
    /// `android` or `ios`.
    pub platform: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeviceTokenView {
    pub token: String,
    pub platform: String,
    pub updated_at: chrono::DateTime<chrono::Utc>,
}

impl From<device_token::Model> for DeviceTokenView {
    fn from(d: device_token::Model) -> Self {
        Self {
            token: d.token,
            platform: d.platform,
            updated_at: d.updated_at,
        }
    }
}
