//! Wire shapes of the onboarding chat.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OnboardingStart {
    /// 1–128 characters.
    #[schema(min_length = 1, max_length = 128)]
    pub user_id: String,
    /// Default worker_onboarding, the only kind so far.
    #[schema(value_type = Option<OnboardingType>)]
    pub session_type: Option<String>,
}

/// Kinds of onboarding chat.
#[derive(ToSchema)]
#[expect(dead_code, reason = "an OpenAPI schema only: described, never built")]
#[schema(rename_all = "snake_case")]
pub enum OnboardingType {
    WorkerOnboarding,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct OnboardingSession {
    pub session_id: Uuid,
    pub session_token: String,
    pub greeting: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OnboardingMessage {
    /// 1–5,000 characters.
    pub content: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct OnboardingReply {
    pub response: String,
    /// skills, years_experience, service_area, availability, hourly_rate, languages
    #[schema(value_type = Object)]
    pub extracted_data: Value,
    pub profile_complete: bool,
}
