//! /auth/*: OTP, sign-up, sign-in, PIN reset, refresh, logout.

use super::domain::{Handle, OtpPurpose, Pin};
use super::dto::*;
use super::error::{IdentityError, Result};
use super::extract::Authenticated;
use super::limits::per_phone;
use super::openapi::Errors;
use super::service::tokens::ClientInfo;
use super::service::{accounts, live_user_by_phone, otp, tokens};
use super::IdentityState;
use crate::core::client;
use crate::core::json_body::Json;
use crate::core::password;
use crate::core::phone::PhoneNumber;
use crate::core::session::{Change, EndReason};
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
    per_phone(
        &req,
        "otp_send",
        st.cfg.rate_limits.otp_send(),
        phone.as_str(),
    )
    .await?;
    let sent = otp::send(&st, &phone, purpose).await?;
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
    let name = body
        .name
        .as_deref()
        .map(super::domain::parse_name)
        .transpose()?;
    let client = client_info(&req, body.device_name.as_deref(), body.platform.as_deref())?;
    let input = accounts::SignupInput {
        temp_token: body.temp_token,
        pin,
        handle,
        name,
    };
    let created = accounts::signup(&st, input, &client).await?;
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
    accounts::ensure_unlocked(&user, st.core.now())?;
    per_phone(&req, "signin", limit, phone.as_str()).await?;
    let signed_in = accounts::signin(&st, user, &pin, &client).await?;
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
    let reset = accounts::reset_pin(&st, &body.temp_token, pin, &client).await?;
    Ok(HttpResponse::Ok().json(ok(reset)))
}

/// Rotates the refresh token: the one sent stops working (using it again revokes the
/// session), the new one is valid 30 days from now, cut short only by a configured absolute
/// session lifetime.
#[utoipa::path(tag = "auth", request_body = RefreshRequest,
    responses((status = 200, body = Success<TokenPair>), Errors))]
#[post("/auth/refresh")]
pub async fn refresh(
    st: web::Data<IdentityState>,
    body: Json<RefreshRequest>,
) -> Result<HttpResponse> {
    let pair = tokens::refresh(&st, body.refresh_token.trim()).await?;
    Ok(HttpResponse::Ok().json(ok(pair)))
}

#[utoipa::path(tag = "auth", request_body = LogoutRequest,
    security(("bearer" = [])), responses((status = 200, body = Success<MessageResponse>), Errors))]
#[post("/auth/logout")]
pub async fn logout(
    auth: Authenticated,
    st: web::Data<IdentityState>,
    body: Json<LogoutRequest>,
) -> Result<HttpResponse> {
    tokens::logout(&st, auth.user.id, body.refresh_token.trim()).await?;
    Ok(HttpResponse::Ok().json(ok(MessageResponse {
        message: "Logged out".into(),
    })))
}

#[utoipa::path(tag = "auth",
    security(("bearer" = [])), responses((status = 200, body = Success<LogoutAllResponse>), Errors))]
#[post("/auth/logout/all")]
pub async fn logout_all(auth: Authenticated, st: web::Data<IdentityState>) -> Result<HttpResponse> {
    let n = tokens::revoke_all(&st.core.db, auth.user.id, st.core.now()).await?;
    st.sessions.changed(Change::AccountEnded {
        account: auth.user.id,
        reason: EndReason::LoggedOut,
    });
    Ok(HttpResponse::Ok().json(ok(LogoutAllResponse {
        message: "Logged out of all sessions".into(),
        sessions_revoked: n,
    })))
}
