//! Rate limits of the spec's table. Per-client limits run here, before the handler; the
//! per-phone limits of OTP sends and sign-ins run in the handlers once the phone is parsed.

use super::error::IdentityError;
use super::extract::bearer_token;
use super::service::tokens::ACCESS;
use super::IdentityState;
use crate::core::client;
use crate::core::config::LimitSettings;
use crate::core::rate_limit;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::{web, HttpRequest, ResponseError};

type Policy = (&'static str, LimitSettings, bool);

/// Which limit applies to the matched route, and whether it is counted per caller token.
fn policy(st: &IdentityState, req: &HttpRequest) -> Policy {
    let l = &st.cfg.rate_limits;
    let table: [(Method, &str, Policy); 3] = [
        (
            Method::POST,
            "/auth/otp/send",
            ("otp_send_ip", l.otp_send_per_ip, false),
        ),
        (
            Method::POST,
            "/auth/signin",
            ("signin_ip", l.signin_per_ip, false),
        ),
        (
            Method::GET,
            "/users/handle/check",
            ("handle_check", l.handle_check, false),
        ),
    ];
    rate_limit::by_route(req, &table)
        .copied()
        .unwrap_or(("default", l.default, true))
}

pub async fn by_client(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let Some(st) = req.app_data::<web::Data<IdentityState>>().cloned() else {
        return next
            .call(req)
            .await
            .map(ServiceResponse::map_into_left_body);
    };
    let (bucket, limit, per_token) = policy(&st, req.request());
    let now = st.core.now();
    // Only a genuine access token earns its own bucket: keyed by anything the caller
    // sends, a fresh made-up token per request would dodge the per-IP limit.
    let caller = per_token
        .then(|| bearer_token(req.request()))
        .flatten()
        .and_then(|token| st.core.jwt.verify(token, ACCESS, now).ok())
        .map(|claims| claims.sid.unwrap_or(claims.sub));
    let key = match caller {
        Some(session) => format!("identity:{bucket}:s:{session}"),
        None => format!("identity:{bucket}:ip:{}", client::ip(req.request())),
    };
    let decision = st.core.limiter.hit(&key, limit, now).await;
    rate_limit::record(&req, decision);
    if !decision.allowed {
        let err = IdentityError::RateLimited {
            retry_after: decision.retry_after_secs(now),
        };
        return Ok(req
            .into_response(err.error_response())
            .map_into_right_body());
    }
    next.call(req)
        .await
        .map(ServiceResponse::map_into_left_body)
}

/// Counts one request against a per-phone limit.
pub async fn per_phone(
    req: &HttpRequest,
    st: &IdentityState,
    bucket: &str,
    limit: LimitSettings,
    phone: &str,
) -> Result<(), IdentityError> {
    let now = st.core.now();
    let decision = st
        .core
        .limiter
        .hit(&format!("identity:{bucket}:phone:{phone}"), limit, now)
        .await;
    rate_limit::record(req, decision);
    if decision.allowed {
        Ok(())
    } else {
        Err(IdentityError::RateLimited {
            retry_after: decision.retry_after_secs(now),
        })
    }
}
