//! /auth/*: OTP, sign-up, sign-in and PIN reset (refresh and logout are in `sessions`).

use super::super::error::{IdentityError, Result};
use super::super::limits::per_phone;
use super::super::openapi::Errors;
use super::super::sessions::store::ClientInfo;
use super::super::state::IdentityState;
use super::super::users::domain::{parse_name, Handle};
use super::super::users::store::live_user_by_phone;
use super::domain::{OtpPurpose, Pin};
use super::dto::*;
use super::{otp, service};
use crate::core::client;
use crate::core::dto::{ok, Success};
use crate::core::json_body::Json;
use crate::core::password;
use crate::core::phone::PhoneNumber;
use actix_web::{post, web, HttpRequest, HttpResponse};

fn phone(raw: &str) -> Result<PhoneNumber> {
    PhoneNumber::parse(raw).map_err(|_| IdentityError::InvalidPhone.into())
}

/// Device facts for the session list: sent fields win, the User-Agent fills the gaps.
pub fn client_info(
    req: &HttpRequest,
    device_name: Option<&str>,
    platform: Option<&str>,
) -> Result<ClientInfo> {
    let ua = client::user_agent(req).unwrap_or_default();
    let device_name = match device_name.map(str::trim) {
        Some(d)
            if !d.is_empty() && d.chars().count() <= 100 && !d.chars().any(char::is_control) =>
        {
            d.to_owned()
        }
        Some(_) => {
            return Err(IdentityError::InvalidRequest(
                "device_name must be 1 to 100 printable characters".into(),
            )
            .into())
        }
        None => client::device_from_user_agent(&ua),
    };
    let platform = match platform.map(|p| p.trim().to_ascii_lowercase()) {
        Some(p)
            if (1..=20).contains(&p.len())
                && p.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') =>
        {
            p
        }
        Some(_) => {
            return Err(IdentityError::InvalidRequest(
                "platform must be a short name such as ios, android or web".into(),
            )
            .into())
        }
        None => client::platform_from_user_agent(&ua).to_owned(),
    };
    Ok(ClientInfo {
        ip: client::ip(req),
        device_name,
        platform,
    })
}

#[utoipa::path(tag = "auth", request_body = OtpSendRequest,
    responses((status = 200, body = Success<OtpSent>), Errors))]
#[post("/auth/otp/send")]
pub async fn otp_send(
    req: HttpRequest,
    st: web::Data<IdentityState>,
    body: Json<OtpSendRequest>,
) -> Result<HttpResponse> {
    let phone = phone(&body.phone)?;
    let purpose = OtpPurpose::parse(&body.purpose)?;
    let sent = otp::send(&req, &st, &phone, purpose).await?;
    Ok(HttpResponse::Ok().json(ok(sent)))
}

#[utoipa::path(tag = "auth", request_body = OtpVerifyRequest,
    responses((status = 200, body = Success<OtpVerified>), Errors))]
#[post("/auth/otp/verify")]
pub async fn otp_verify(
    st: web::Data<IdentityState>,
    body: Json<OtpVerifyRequest>,
) -> Result<HttpResponse> {
    let phone = phone(&body.phone)?;
    let purpose = OtpPurpose::parse(&body.purpose)?;
    let code = body.code.trim();
    if code.is_empty() || code.len() > 12 {
        return Err(IdentityError::InvalidOtp {
            attempts_remaining: 0,
        }
        .into());
    }
    let verified = otp::verify(&st, &phone, purpose, code).await?;
    Ok(HttpResponse::Ok().json(ok(verified)))
}

#[utoipa::path(tag = "auth", request_body = SignupRequest,
    responses((status = 201, body = Success<AuthResponse>), Errors))]
#[post("/auth/signup")]
pub async fn signup(
    req: HttpRequest,
    st: web::Data<IdentityState>,
    body: Json<SignupRequest>,
) -> Result<HttpResponse> {
    let body = body.into_inner();
    let pin = Pin::parse(&body.pin)?;
    let handle = Handle::parse(&body.handle)?;
    let name = body.name.as_deref().map(parse_name).transpose()?;
    let client = client_info(&req, body.device_name.as_deref(), body.platform.as_deref())?;
    let input = service::SignupInput {
        temp_token: body.temp_token,
        pin,
        handle,
        name,
    };
    let created = service::signup(&st, input, &client).await?;
    Ok(HttpResponse::Created().json(ok(created)))
}

#[utoipa::path(tag = "auth", request_body = SigninRequest,
    responses((status = 200, body = Success<AuthResponse>), Errors))]
#[post("/auth/signin")]
pub async fn signin(
    req: HttpRequest,
    st: web::Data<IdentityState>,
    body: Json<SigninRequest>,
) -> Result<HttpResponse> {
    let phone = phone(&body.phone)?;
    let pin = Pin::parse(&body.pin)?;
    let client = client_info(&req, body.device_name.as_deref(), body.platform.as_deref())?;
    let limit = st.cfg.rate_limits.signin();
    let Some(user) = live_user_by_phone(&st.core.db, &phone).await? else {
        per_phone(&req, "signin", limit, phone.as_str()).await?;
        // Same work as a real check, so timing does not add to what the code already says.
        password::dummy_verify(pin.expose()).await;
        return Err(IdentityError::AccountNotFound.into());
    };
    // The lock is reported before the rate limit so a locked account is observable as such.
    service::ensure_unlocked(&user, st.core.now())?;
    per_phone(&req, "signin", limit, phone.as_str()).await?;
    let signed_in = service::signin(&st, user, &pin, &client).await?;
    Ok(HttpResponse::Ok().json(ok(signed_in)))
}

#[utoipa::path(tag = "auth", request_body = PinResetRequest,
    responses((status = 200, body = Success<PinResetResponse>), Errors))]
#[post("/auth/pin/reset")]
pub async fn pin_reset(
    req: HttpRequest,
    st: web::Data<IdentityState>,
    body: Json<PinResetRequest>,
) -> Result<HttpResponse> {
    let pin = Pin::parse(&body.new_pin)?;
    let client = client_info(&req, None, None)?;
    let reset = service::reset_pin(&st, &body.temp_token, pin, &client).await?;
    Ok(HttpResponse::Ok().json(ok(reset)))
}
