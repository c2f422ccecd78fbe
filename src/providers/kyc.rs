//! KYC port: starts an identity verification and says where the person completes it.
//! The built-in provider (in the identity service) serves its own verification page; an
//! external provider would return its hosted URL and report back by callback.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

#[derive(Debug, Clone)]
pub struct KycStart {
    pub verification_url: String,
    pub expires_at: DateTime<Utc>,
}

#[async_trait]
pub trait KycProvider: Send + Sync {
    type Error;
    async fn start(&self, user_id: Uuid, now: DateTime<Utc>) -> Result<KycStart, Self::Error>;
}
