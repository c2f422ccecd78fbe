//! Wire shapes of refresh, logout and /sessions.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use switchboard_entities::identity::session;
use utoipa::ToSchema;

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
