//! Administration's wire shapes.

use serde::{Deserialize, Serialize};
use switchboard_entities::advertising::admin;
use utoipa::ToSchema;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LoginRequest {
    pub email: Option<String>,
    pub password: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminView {
    pub id: String,
    pub email: String,
    /// `admin`, `moderator` or `finance`.
    pub role: String,
    pub created_at: chrono::DateTime<chrono::Utc>,
}

impl From<&admin::Model> for AdminView {
    fn from(a: &admin::Model) -> Self {
        Self {
            id: a.id.to_string(),
            email: a.email.clone(),
            role: a.role.clone(),
            created_at: a.created_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct AdminSignedIn {
    /// A bearer token (`typ: admin`).
    pub token: String,
    pub admin: AdminView,
}
