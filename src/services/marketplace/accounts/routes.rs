//! /auth/*: sign-up, phone verification, login, token refresh, the current user, password
//! reset and code resends.

use crate::core::auth::Bearer;
use crate::core::http::json;
use crate::core::json_body::Json;
use crate::core::session::SessionKey;
use crate::services::marketplace::accounts::domain::{Email, OtpPurpose, Password};
use crate::services::marketplace::accounts::dto::*;
use crate::services::marketplace::accounts::store::{self, SignupInput};
use crate::services::marketplace::accounts::tokens;
use crate::services::marketplace::domain::{self, required};
use crate::services::marketplace::error::{MarketplaceError, Result};
use crate::services::marketplace::openapi::Errors;
use crate::services::marketplace::state::MarketplaceState;
use crate::services::marketplace::wire::*;
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use switchboard_entities::marketplace::user;

/// The same answer whether or not the phone has an account.
const CODE_SENT_IF_ACCOUNT: &str = "If an account can use it, a verification code was sent";

#[utoipa::path(tag = "auth", request_body = SignupRequest,
    responses((status = 201, body = Success<AuthResult>), Errors))]
#[post("/auth/signup")]
pub async fn signup(
    st: web::Data<MarketplaceState>,
    body: Json<SignupRequest>,
) -> Result<HttpResponse> {
    let phone = domain::phone(required("phone", &body.phone)?)?;
    let password = Password::parse("password", required("password", &body.password)?)?;
    let email = body.email.as_deref().map(Email::parse).transpose()?;
    let name = body.name.as_deref().map(domain::name).transpose()?;
    let message = format!("Verification code sent to {}", phone.masked());
    let input = SignupInput {
        phone,
        email,
        password,
        name,
    };
    let created = store::signup(&st, input).await?;
    Ok(HttpResponse::Created().json(ok_with(message, created)))
}

#[utoipa::path(tag = "auth", request_body = PhoneOtpRequest,
    responses((status = 200, body = Success<AuthResult>), Errors))]
#[post("/auth/verify-signup")]
pub async fn verify_signup(
    st: web::Data<MarketplaceState>,
    body: Json<PhoneOtpRequest>,
) -> Result<HttpResponse> {
    let phone = domain::phone(required("phone", &body.phone)?)?;
    let otp = required("otp", &body.otp)?;
    let verified = store::verify_signup(&st, &phone, otp).await?;
    Ok(HttpResponse::Ok().json(ok_with("Phone number verified", verified)))
}

#[utoipa::path(tag = "auth", request_body = LoginRequest,
    responses((status = 200, body = Success<AuthResult>), Errors))]
#[post("/auth/login")]
pub async fn login(
    st: web::Data<MarketplaceState>,
    body: Json<LoginRequest>,
) -> Result<HttpResponse> {
    let phone = domain::phone(required("phone", &body.phone)?)?;
    let secret = required("password", &body.password)?;
    let logged_in = store::login(&st, &phone, secret.to_owned()).await?;
    Ok(HttpResponse::Ok().json(ok_with("Logged in", logged_in)))
}

/// A new access token. `refreshToken` answers the token to use next: the same one (the
/// spec), or with `rotate_refresh_tokens` a new one, and sending the old one again then
/// revokes every token of its login.
#[utoipa::path(tag = "auth", request_body = RefreshRequest,
    responses((status = 200, body = Success<Refreshed>), Errors))]
#[post("/auth/refresh-token")]
pub async fn refresh_token(
    st: web::Data<MarketplaceState>,
    body: Json<RefreshRequest>,
) -> Result<HttpResponse> {
    let token = required("refreshToken", &body.refresh_token)?;
    let issued = tokens::refresh(&st, token.trim()).await?;
    Ok(HttpResponse::Ok().json(ok(Refreshed {
        access_token: issued.access,
        refresh_token: issued.refresh,
    })))
}

/// Ends this login (not in the spec): its refresh token stops working, its access tokens
/// and sockets at once.
#[utoipa::path(tag = "auth", security(("bearer" = [])),
    responses((status = 200, body = Success<Empty>), Errors))]
#[post("/auth/logout")]
pub async fn logout(auth: Bearer, st: web::Data<MarketplaceState>) -> Result<HttpResponse> {
    let key = SessionKey::of(&auth.claims).ok_or(MarketplaceError::AccountGone)?;
    tokens::logout(&st, key).await?;
    Ok(HttpResponse::Ok().json(ok_with("Logged out", Empty {})))
}

#[utoipa::path(tag = "auth", security(("bearer" = [])),
    responses((status = 200, body = Success<User>), Errors))]
#[get("/auth/me")]
pub async fn me(auth: Bearer) -> Result<HttpResponse> {
    // The account as the session check read it (kept current by every change).
    let u = auth
        .account::<user::Model>()
        .ok_or(MarketplaceError::AccountGone)?;
    Ok(json(HttpResponse::Ok(), &ok(User::from(&*u))))
}

#[utoipa::path(tag = "auth", request_body = PhoneRequest,
    responses((status = 200, body = Success<Empty>), Errors))]
#[post("/auth/forgot-password")]
pub async fn forgot_password(
    req: HttpRequest,
    st: web::Data<MarketplaceState>,
    body: Json<PhoneRequest>,
) -> Result<HttpResponse> {
    let phone = domain::phone(required("phone", &body.phone)?)?;
    store::send_code(&req, &st, &phone, OtpPurpose::PasswordReset).await?;
    Ok(HttpResponse::Ok().json(ok_with(CODE_SENT_IF_ACCOUNT, Empty {})))
}

#[utoipa::path(tag = "auth", request_body = PhoneOtpRequest,
    responses((status = 200, body = Success<ResetToken>), Errors))]
#[post("/auth/verify-forgot-password")]
pub async fn verify_forgot_password(
    st: web::Data<MarketplaceState>,
    body: Json<PhoneOtpRequest>,
) -> Result<HttpResponse> {
    let phone = domain::phone(required("phone", &body.phone)?)?;
    let otp = required("otp", &body.otp)?;
    let token = store::verify_forgot(&st, &phone, otp).await?;
    Ok(HttpResponse::Ok().json(ok_with("Code verified; set a new password", token)))
}

#[utoipa::path(tag = "auth", request_body = ResetPasswordRequest,
    responses((status = 200, body = Success<Empty>), Errors))]
#[post("/auth/reset-password")]
pub async fn reset_password(
    st: web::Data<MarketplaceState>,
    body: Json<ResetPasswordRequest>,
) -> Result<HttpResponse> {
    let token = required("token", &body.token)?;
    let new = Password::parse("newPassword", required("newPassword", &body.new_password)?)?;
    store::reset_password(&st, token.trim(), new).await?;
    Ok(HttpResponse::Ok().json(ok_with(
        "Password reset; log in with the new password",
        Empty {},
    )))
}

#[utoipa::path(tag = "auth", request_body = ResendOtpRequest,
    responses((status = 200, body = Success<Empty>), Errors))]
#[post("/auth/resend-otp")]
pub async fn resend_otp(
    req: HttpRequest,
    st: web::Data<MarketplaceState>,
    body: Json<ResendOtpRequest>,
) -> Result<HttpResponse> {
    let phone = domain::phone(required("phone", &body.phone)?)?;
    let purpose = OtpPurpose::parse(required("type", &body.kind)?)?;
    store::send_code(&req, &st, &phone, purpose).await?;
    Ok(HttpResponse::Ok().json(ok_with(CODE_SENT_IF_ACCOUNT, Empty {})))
}
