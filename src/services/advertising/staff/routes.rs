//! /admin/auth/*: administrators sign in by email and password.

use super::super::error::{AdvertisingError, Result};
use super::super::openapi::Errors;
use super::super::sessions;
use super::super::state::AdvertisingState;
use super::super::wire::{ok, Data};
use super::accounts;
use super::dto::*;
use crate::core::auth::{Bearer, StaffRole};
use crate::core::json_body::Json;
use crate::core::session::{EndReason, SessionKey};
use actix_web::{post, web, HttpResponse};

/// A required text field of a body.
pub fn required<'a>(field: &'static str, value: Option<&'a str>) -> Result<&'a str> {
    value
        .filter(|v| !v.trim().is_empty())
        .ok_or_else(|| AdvertisingError::invalid(field, "is required").into())
}

/// Signs an administrator in: a token whose role is the account's.
#[utoipa::path(tag = "admin", request_body = LoginRequest,
    responses((status = 200, body = Data<AdminSignedIn>), Errors))]
#[post("/admin/auth/login")]
pub async fn admin_login(
    st: web::Data<AdvertisingState>,
    body: Json<LoginRequest>,
) -> Result<HttpResponse> {
    let email = required("email", body.email.as_deref())?;
    let password = required("password", body.password.as_deref())?;
    let (a, token) = accounts::login(&st, email, password).await?;
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
