//! Rate limits of the spec's table: authentication requests per address, everything else
//! per caller (per address when anonymous). Declared here, applied by the core middleware.

use crate::core::config::LimitSettings;
use crate::core::rate_limit::{Limits, Per, Rule};
use crate::services::marketplace::settings::MarketplaceRateLimits;
use crate::services::marketplace::state::MarketplaceState;
use actix_web::http::Method;

/// The endpoints that take a credential or a code, where guessing is the threat.
const AUTH_ROUTES: [&str; 7] = [
    "/auth/signup",
    "/auth/verify-signup",
    "/auth/login",
    "/auth/forgot-password",
    "/auth/verify-forgot-password",
    "/auth/reset-password",
    "/auth/resend-otp",
];

type LimitOf = fn(&MarketplaceRateLimits) -> LimitSettings;

/// The interactions the spec limits on their own and the AI helpers (which share one budget,
/// since each may cost a model call); all POST, per caller: path, bucket, limit.
const CALLER_ROUTES: [(&str, &str, LimitOf); 12] = [
    ("/cars/{id}/like", "likes", |l| l.likes),
    ("/cars/comments/{commentId}/like", "likes", |l| l.likes),
    ("/cars/{id}/comments", "comments", |l| l.comments),
    ("/cars/comments/{commentId}/reply", "comments", |l| {
        l.comments
    }),
    ("/cars/{id}/views", "views", |l| l.views),
    ("/ai/generate-listing", "ai", |l| l.ai),
    ("/ai/enhance-description", "ai", |l| l.ai),
    ("/ai/search-natural-language", "ai", |l| l.ai),
    ("/ai/recommendations", "ai", |l| l.ai),
    ("/ai/pricing-insights", "ai", |l| l.ai),
    ("/ai/generate-car-description", "ai", |l| l.ai),
    ("/ai/lifestyle-recommendations", "ai", |l| l.ai),
];

pub fn limits(st: &MarketplaceState) -> Limits {
    let l = &st.cfg.rate_limits;
    let per_caller = CALLER_ROUTES
        .iter()
        .map(|&(path, bucket, limit)| Rule::new(Method::POST, path, bucket, limit(l), Per::Caller));
    let auth = AUTH_ROUTES.iter().map(|path| {
        Rule::new(Method::POST, path, "auth", l.auth, Per::Ip).refused_when_unreachable()
    });
    Limits::of_service("marketplace", &st.core)
        .rules(auth.chain(per_caller))
        // Engine.IO polls are many small requests per socket; sockets have their own limits.
        .exempt("/socket.io")
        .exempt("/socket.io/")
        .default_limit(l.general, Per::Caller)
}
