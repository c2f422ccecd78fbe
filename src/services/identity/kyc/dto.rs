//! Wire shapes of /kyc.

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

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
