//! Rate limits of the spec's table: authentication requests per address, everything else
//! per caller (per address when anonymous). Declared here, applied by the core middleware.

use super::MarketplaceState;
use crate::core::rate_limit::{Limits, Per, Rule};
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

pub fn limits(st: &MarketplaceState) -> Limits {
    let l = &st.cfg.rate_limits;
    AUTH_ROUTES
        .iter()
        .fold(
            Limits::new(
                "marketplace",
                st.core.limiter.clone(),
                st.core.clock.clone(),
            ),
            |limits, path| limits.rule(Rule::new(Method::POST, path, "auth", l.auth, Per::Ip)),
        )
        .default_limit(l.general, Per::Caller)
}
