//! /auth/* (sign-in by phone), /users/profile, /users/referral-code and /device-token.

use super::super::error::{AdvertisingError, Result};
use super::super::openapi::Errors;
use super::super::sessions::{self, PosterBearer};
use super::super::state::AdvertisingState;
use super::super::wire::{ok, Data};
use super::dto::*;
use super::{domain, signin, store};
use crate::core::json_body::Json;
use crate::core::session::{EndReason, SessionKey};
use actix_web::{delete, get, post, put, web, HttpRequest, HttpResponse};

fn required<'a>(field: &'static str, value: &'a Option<String>) -> Result<&'a str> {
    value
        .as_deref()
        .filter(|v| !v.trim().is_empty())
        .ok_or_else(|| AdvertisingError::invalid(field, "is required").into())
}

/// Sends a six-digit code by SMS (valid 10 minutes; one a minute per phone).
#[utoipa::path(tag = "auth", request_body = RequestOtp,
    responses((status = 200, body = Data<Sent>), Errors))]
#[post("/auth/request-otp")]
pub async fn request_otp(
    req: HttpRequest,
    st: web::Data<AdvertisingState>,
    body: Json<RequestOtp>,
) -> Result<HttpResponse> {
    let phone = domain::phone(required("phoneNumber", &body.phone_number)?)?;
    let country = domain::country("countryId", required("countryId", &body.country_id)?)?;
    signin::request(&req, &st, &phone, country).await?;
    Ok(ok(Sent {
        message: format!("Verification code sent to {}", phone.masked()),
        expires_in: st.cfg.otp_ttl_secs,
    }))
}

/// Checks the code: the poster (made on first success) and a token.
#[utoipa::path(tag = "auth", request_body = VerifyOtp,
    responses((status = 200, body = Data<SignedIn>), Errors))]
#[post("/auth/verify-otp")]
pub async fn verify_otp(
    st: web::Data<AdvertisingState>,
    body: Json<VerifyOtp>,
) -> Result<HttpResponse> {
    let phone = domain::phone(required("phoneNumber", &body.phone_number)?)?;
    let code = required("code", &body.code)?;
    let (poster, token) = signin::verify(&st, &phone, code).await?;
    Ok(ok(SignedIn {
        user: PosterView::from(&poster),
        token,
    }))
}

/// Ends this token's session at once and forgets the device token.
#[utoipa::path(tag = "auth", responses((status = 200, body = Data<serde_json::Value>), Errors),
    security(("bearer" = [])))]
#[post("/auth/logout")]
pub async fn logout(st: web::Data<AdvertisingState>, bearer: PosterBearer) -> Result<HttpResponse> {
    let poster = sessions::poster(&bearer)?;
    let key = SessionKey::of(&bearer.claims)
        .ok_or_else(|| AdvertisingError::invalid("Authorization", "token names no session"))?;
    store::delete_device_token(&st, poster.id).await?;
    sessions::end(&st, key, EndReason::LoggedOut).await?;
    Ok(ok(serde_json::json!({ "message": "Logged out" })))
}

#[utoipa::path(tag = "users", responses((status = 200, body = Data<PosterView>), Errors),
    security(("bearer" = [])))]
#[get("/users/profile")]
pub async fn profile(bearer: PosterBearer) -> Result<HttpResponse> {
    Ok(ok(PosterView::from(sessions::poster(&bearer)?.as_ref())))
}

/// Changes the given fields; `null` clears `email` or `avatarUrl`.
#[utoipa::path(tag = "users", request_body = UpdateProfile,
    responses((status = 200, body = Data<PosterView>), Errors), security(("bearer" = [])))]
#[put("/users/profile")]
pub async fn update_profile(
    st: web::Data<AdvertisingState>,
    bearer: PosterBearer,
    body: Json<UpdateProfile>,
) -> Result<HttpResponse> {
    let poster = sessions::poster(&bearer)?;
    let body = body.into_inner();
    let change = store::ProfileChange {
        name: body.name.as_deref().map(domain::name).transpose()?,
        email: body
            .email
            .map(|e| e.as_deref().map(domain::email).transpose())
            .transpose()?,
        avatar_url: body
            .avatar_url
            .map(|u| {
                u.as_deref()
                    .map(|u| domain::https_url("avatarUrl", u))
                    .transpose()
            })
            .transpose()?,
        country: body
            .country_id
            .as_deref()
            .map(|c| domain::country("countryId", c).map(|c| c.alpha2.to_string()))
            .transpose()?,
    };
    let updated = store::update_profile(&st, &poster, change).await?;
    Ok(ok(PosterView::from(&updated)))
}

/// Subscriptions and screenshots by status, the approval rate and earnings.
#[utoipa::path(tag = "users", responses((status = 200, body = Data<super::stats::PosterStats>), Errors),
    security(("bearer" = [])))]
#[get("/users/stats")]
pub async fn poster_stats(
    st: web::Data<AdvertisingState>,
    bearer: PosterBearer,
) -> Result<HttpResponse> {
    let poster = sessions::poster(&bearer)?;
    Ok(ok(super::stats::of(&st, poster.id).await?))
}

/// The poster's code: eight characters without 0, O, 1, I or L, theirs for life.
#[utoipa::path(tag = "users", responses((status = 200, body = Data<ReferralCode>), Errors),
    security(("bearer" = [])))]
#[get("/users/referral-code")]
pub async fn referral_code(bearer: PosterBearer) -> Result<HttpResponse> {
    Ok(ok(ReferralCode {
        referral_code: sessions::poster(&bearer)?.referral_code.clone(),
    }))
}

/// Registers the device for push notifications; a new token replaces the old one.
#[utoipa::path(tag = "users", request_body = DeviceTokenRequest,
    responses((status = 200, body = Data<DeviceTokenView>), Errors), security(("bearer" = [])))]
#[post("/device-token")]
pub async fn set_device_token(
    st: web::Data<AdvertisingState>,
    bearer: PosterBearer,
    body: Json<DeviceTokenRequest>,
) -> Result<HttpResponse> {
    let poster = sessions::poster(&bearer)?;
    let token = required("token", &body.token)?.trim();
    if token.len() > 4096 || token.chars().any(char::is_whitespace) {
        return Err(AdvertisingError::invalid(
            "token",
            "must be 1 to 4096 characters without spaces",
        )
        .into());
    }
    let platform = match required("platform", &body.platform)? {
        p @ ("android" | "ios") => p,
        _ => return Err(AdvertisingError::invalid("platform", "must be android or ios").into()),
    };
    let saved =
        store::set_device_token(&st, poster.id, token.to_owned(), platform, st.core.now()).await?;
    Ok(ok(DeviceTokenView::from(saved)))
}

#[utoipa::path(tag = "users", responses((status = 200, body = Data<serde_json::Value>), Errors),
    security(("bearer" = [])))]
#[delete("/device-token")]
pub async fn delete_device_token(
    st: web::Data<AdvertisingState>,
    bearer: PosterBearer,
) -> Result<HttpResponse> {
    let poster = sessions::poster(&bearer)?;
    if !store::delete_device_token(&st, poster.id).await? {
        return Err(AdvertisingError::NotFound(super::super::error::Record::DeviceToken).into());
    }
    Ok(ok(serde_json::json!({ "message": "Device token removed" })))
}
