//! Rate limits of the spec's table. Per-client limits are declared here and applied by the
//! core middleware before the handler; the per-phone limits of sign-ins are counted by the
//! handler once the phone is parsed ([`per_phone`]), and those of codes sent by
//! `core::code_limits` (`IdentitySettings::code_limits`).

use super::state::IdentityState;
use crate::core::error::ApiError;
use crate::core::rate_limit::{Limits, Per, PhoneLimit, Rule};
use actix_web::http::Method;
use actix_web::HttpRequest;

pub fn limits(st: &IdentityState) -> Limits {
    let l = &st.cfg.rate_limits;
    Limits::of_service("identity", &st.core)
        .rule(
            Rule::new(
                Method::POST,
                "/auth/otp/send",
                "otp_send_ip",
                l.otp_send_per_ip,
                Per::Ip,
            )
            .refused_when_unreachable(),
        )
        .rule(
            Rule::new(
                Method::POST,
                "/auth/signin",
                "signin_ip",
                l.signin_per_ip,
                Per::Ip,
            )
            .refused_when_unreachable(),
        )
        .rule(Rule::new(
            Method::GET,
            "/users/handle/check",
            "handle_check",
            l.handle_check,
            Per::Ip,
        ))
        .default_limit(l.default, Per::Caller)
}

/// Counts one request against a phone's limits: its sender's share and the phone's ceiling.
pub async fn per_phone(
    req: &HttpRequest,
    bucket: &str,
    limit: PhoneLimit,
    phone: &str,
) -> Result<(), ApiError> {
    Limits::of(req)?
        .check_phone(req, bucket, limit, &format!("phone:{phone}"))
        .await
}
