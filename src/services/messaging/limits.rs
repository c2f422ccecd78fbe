//! Rate limits per workspace (the spec's bulk limit: 10 requests per 5 minutes; the send
//! limit and the rest are documented choices, all configurable). A workspace is known only
//! once its key or token is resolved, so handlers count them ([`per_workspace`]).

use super::state::MessagingState;
use crate::core::config::LimitSettings;
use crate::core::error::ApiError;
use crate::core::rate_limit::Limits;
use actix_web::HttpRequest;
use uuid::Uuid;

pub fn limits(st: &MessagingState) -> Limits {
    Limits::of_service("messaging", &st.core)
}

/// Counts one request of `workspace` against `limit`.
pub async fn per_workspace(
    req: &HttpRequest,
    bucket: &str,
    limit: LimitSettings,
    workspace: Uuid,
) -> Result<(), ApiError> {
    Limits::of(req)?
        .check(req, bucket, limit, &workspace.to_string())
        .await
}
