//! Rate limits per workspace (the spec's bulk limit: 10 requests per 5 minutes; the send
//! limit and the rest are documented choices, all configurable).

use super::error::MessagingError;
use super::MessagingState;
use crate::core::config::LimitSettings;
use crate::core::rate_limit;
use actix_web::HttpRequest;
use uuid::Uuid;

pub async fn check(
    req: &HttpRequest,
    st: &MessagingState,
    bucket: &str,
    limit: LimitSettings,
    workspace_id: Uuid,
) -> Result<(), MessagingError> {
    let now = st.core.now();
    let decision = st
        .core
        .limiter
        .hit(&format!("messaging:{bucket}:{workspace_id}"), limit, now)
        .await;
    rate_limit::record(req, decision);
    if decision.allowed {
        Ok(())
    } else {
        Err(MessagingError::RateLimited {
            retry_after: decision.retry_after_secs(now),
        })
    }
}
