//! /admin/auth/*: administrators sign in by email and password (and a TOTP code once they
//! turned it on), and enrol, confirm and disable TOTP.

use super::super::error::{AdvertisingError, Result};
use super::super::openapi::Errors;
use super::super::sessions::{self, AccountKind};
use super::super::signin_guard;
use super::super::state::AdvertisingState;
use super::super::wire::{ok, Data};
use super::accounts;
use super::dto::*;
use super::totp::{self, Second};
use crate::core::auth::{Bearer, StaffRole};
use crate::core::error::ApiError;
use crate::core::json_body::Json;
use crate::core::session::{EndReason, SessionKey};
use actix_web::{post, web, FromRequest, HttpRequest, HttpResponse};
use switchboard_entities::advertising::admin;

/// A required text field of a body.
pub fn required<'a>(field: &'static str, value: Option<&'a str>) -> Result<&'a str> {
    value
        .filter(|v| !v.trim().is_empty())
        .ok_or_else(|| AdvertisingError::invalid(field, "is required").into())
}

/// Signs an administrator in: a token whose role is the account's. With TOTP on, the
/// password alone answers 401 `totp_required`: send `totpCode` (or a `recoveryCode`) too. A
/// wrong password, TOTP or recovery code counts toward the address's lockout (429
/// `account_locked` after `signin_max_failures` in a row, from anywhere, even with the right
/// password; unknown addresses alike). With `require_admin_totp` and no TOTP yet: 403
/// `totp_enrolment_required` with `details.enrolmentToken` for enrol and confirm.
#[utoipa::path(tag = "admin", request_body = LoginRequest,
    responses((status = 200, body = Data<AdminSignedIn>), Errors))]
#[post("/admin/auth/login")]
pub async fn admin_login(
    st: web::Data<AdvertisingState>,
    body: Json<LoginRequest>,
) -> Result<HttpResponse> {
    let email = required("email", body.email.as_deref())?;
    let password = required("password", body.password.as_deref())?;
    let second = Second::of(body.totp_code.as_deref(), body.recovery_code.as_deref());
    let (a, token) = accounts::login(&st, email, password, second).await?;
    Ok(ok(AdminSignedIn {
        token,
        admin: AdminView::from(&a),
    }))
}

/// Ends this token's session at once.
#[utoipa::path(tag = "admin", responses((status = 200, body = Data<serde_json::Value>), Errors),
    security(("bearer" = [])))]
#[post("/admin/auth/logout")]
pub async fn admin_logout(
    st: web::Data<AdvertisingState>,
    bearer: Bearer<StaffRole>,
) -> Result<HttpResponse> {
    let key = SessionKey::of(&bearer.claims)
        .ok_or_else(|| AdvertisingError::invalid("Authorization", "token names no session"))?;
    sessions::end(&st, key, EndReason::LoggedOut).await?;
    Ok(ok(serde_json::json!({ "message": "Logged out" })))
}

fn invalid_enrolment() -> ApiError {
    ApiError::unauthorized("the enrolment token is invalid or expired").code("unauthorized")
}

/// Whose TOTP a request enrols or confirms: the enrolment token's administrator when one is
/// sent, else the bearer's.
async fn enroller(
    st: &AdvertisingState,
    req: &HttpRequest,
    enrolment_token: Option<&str>,
) -> Result<admin::Model> {
    match enrolment_token.filter(|t| !t.trim().is_empty()) {
        Some(t) => {
            let id = totp::enrolling(st, t).ok_or_else(invalid_enrolment)?;
            accounts::find(&st.core.db, id)
                .await?
                .ok_or_else(invalid_enrolment)
        }
        None => {
            let bearer = Bearer::<StaffRole>::extract(req).await?;
            Ok(sessions::admin(&bearer)?.as_ref().clone())
        }
    }
}

/// Starts TOTP enrolment: a new secret (base32 and an `otpauth://` URI), shown this once and
/// replacing an unconfirmed one; TOTP is on only after `confirm`. 409
/// `totp_already_enabled` when it is on. Bearer token, or `enrolmentToken` without a session.
#[utoipa::path(tag = "admin", request_body = TotpEnrolRequest,
    responses((status = 200, body = Data<TotpEnrolment>), Errors), security((), ("bearer" = [])))]
#[post("/admin/auth/totp/enrol")]
pub async fn totp_enrol(
    st: web::Data<AdvertisingState>,
    req: HttpRequest,
    body: Json<TotpEnrolRequest>,
) -> Result<HttpResponse> {
    let a = enroller(&st, &req, body.enrolment_token.as_deref()).await?;
    let e = totp::enrol(&st, &a).await?;
    Ok(ok(TotpEnrolment {
        secret: e.secret,
        otpauth_uri: e.uri,
        digits: crate::core::totp::DIGITS,
        period_secs: crate::core::totp::STEP_SECS,
    }))
}

/// Turns TOTP on with a current code of the enrolled secret: answers ten one-time recovery
/// codes, shown this once. A wrong code is 401 `invalid_totp_code` and counts toward the
/// address's sign-in lockout; 409 `totp_not_enrolled` without an enrolment.
#[utoipa::path(tag = "admin", request_body = TotpConfirmRequest,
    responses((status = 200, body = Data<TotpConfirmed>), Errors), security((), ("bearer" = [])))]
#[post("/admin/auth/totp/confirm")]
pub async fn totp_confirm(
    st: web::Data<AdvertisingState>,
    req: HttpRequest,
    body: Json<TotpConfirmRequest>,
) -> Result<HttpResponse> {
    let a = enroller(&st, &req, body.enrolment_token.as_deref()).await?;
    let code = required("code", body.code.as_deref())?;
    let row = totp::of(&st.core.db, a.id)
        .await?
        .ok_or(AdvertisingError::TotpNotEnrolled)?;
    if row.confirmed_at.is_some() {
        return Err(AdvertisingError::TotpAlreadyEnabled.into());
    }
    let attempt = signin_guard::begin(&st, AccountKind::Admin, &a.email).await?;
    let Some(recovery_codes) = totp::confirm(&st, &row, code).await? else {
        attempt
            .failed(&st, Some((AccountKind::Admin, a.id)))
            .await?;
        return Err(AdvertisingError::InvalidTotp.into());
    };
    attempt.succeeded(&st).await?;
    Ok(ok(TotpConfirmed {
        enabled: true,
        recovery_codes,
    }))
}

/// Turns TOTP off with a current code (or a recovery code); 403 `totp_mandatory` while
/// `require_admin_totp` holds. A wrong code counts toward the sign-in lockout.
#[utoipa::path(tag = "admin", request_body = TotpDisableRequest,
    responses((status = 200, body = Data<TotpStatus>), Errors), security(("bearer" = [])))]
#[post("/admin/auth/totp/disable")]
pub async fn totp_disable(
    st: web::Data<AdvertisingState>,
    bearer: Bearer<StaffRole>,
    body: Json<TotpDisableRequest>,
) -> Result<HttpResponse> {
    let a = sessions::admin(&bearer)?;
    if st.cfg.require_admin_totp {
        return Err(AdvertisingError::TotpMandatory.into());
    }
    let second = Second::of(body.code.as_deref(), body.recovery_code.as_deref())
        .ok_or_else(|| AdvertisingError::invalid("code", "is required"))?;
    let row = totp::enabled(&st.core.db, a.id)
        .await?
        .ok_or(AdvertisingError::TotpNotEnrolled)?;
    let attempt = signin_guard::begin(&st, AccountKind::Admin, &a.email).await?;
    if !totp::disable(&st, &row, second).await? {
        attempt
            .failed(&st, Some((AccountKind::Admin, a.id)))
            .await?;
        return Err(AdvertisingError::InvalidTotp.into());
    }
    attempt.succeeded(&st).await?;
    Ok(ok(TotpStatus { enabled: false }))
}
