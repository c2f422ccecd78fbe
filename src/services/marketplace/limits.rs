//! Rate limits of the spec's table: authentication requests per address, everything else
//! per caller (per address when anonymous). Declared here, applied by the core middleware.

use super::MarketplaceState;
use crate::core::error::ApiError;
use crate::core::phone::PhoneNumber;
use crate::core::rate_limit::{Limits, Per, Rule};
use actix_web::http::Method;
use actix_web::HttpRequest;

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

/// The AI helpers, which share one budget per caller.
const AI_ROUTES: [&str; 7] = [
    "/ai/generate-listing",
    "/ai/enhance-description",
    "/ai/search-natural-language",
    "/ai/recommendations",
    "/ai/pricing-insights",
    "/ai/generate-car-description",
    "/ai/lifestyle-recommendations",
];

pub fn limits(st: &MarketplaceState) -> Limits {
    let l = &st.cfg.rate_limits;
    let limits = Limits::new(
        "marketplace",
        st.core.limiter.clone(),
        st.core.clock.clone(),
    );
    let limits = AUTH_ROUTES.iter().fold(limits, |limits, path| {
        limits.rule(Rule::new(Method::POST, path, "auth", l.auth, Per::Ip))
    });
    AI_ROUTES
        .iter()
        .fold(limits, |limits, path| {
            limits.rule(Rule::new(Method::POST, path, "ai", l.ai, Per::Caller))
        })
        .default_limit(l.general, Per::Caller)
}

/// Counts one code asked for `phone`, whether or not it has an account (so the limit tells
/// nothing about accounts either).
pub async fn otp_per_phone(
    req: &HttpRequest,
    st: &MarketplaceState,
    phone: &PhoneNumber,
) -> Result<(), ApiError> {
    let limit = st.cfg.rate_limits.otp_per_phone;
    Limits::of(req)?
        .check(req, "otp_phone", limit, phone.as_str())
        .await
}
