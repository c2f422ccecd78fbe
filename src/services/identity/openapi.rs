//! The identity service's OpenAPI document besides its paths: info, tags, components, security
//! and the error responses. The paths are collected from the routes (`routes()` in mod.rs);
//! `core::http::api_docs` serves the whole at /api-docs/openapi.json, with Swagger UI at
//! /api-docs/.

use super::error::IdentityEnvelope;
use crate::core::error::{ErrorDocs, ErrorResponses, Kind};
use crate::core::http::BearerScheme;
use utoipa::OpenApi;

/// Every error the service can answer, in its envelope.
pub type Errors = ErrorResponses<IdentityErrors>;

pub struct IdentityErrors;

/// The JSON errors of the HTML verification page.
pub type PageErrors = ErrorResponses<KycPageErrors>;

pub struct KycPageErrors;

impl ErrorDocs for KycPageErrors {
    type Envelope = IdentityEnvelope;
    const STATUSES: &'static [(Kind, &'static str)] = &[
        (Kind::MethodNotAllowed, "wrong method for this path"),
        (Kind::TooManyRequests, "RATE_LIMITED"),
        (Kind::Internal, "INTERNAL_ERROR"),
    ];
}

impl ErrorDocs for IdentityErrors {
    type Envelope = IdentityEnvelope;
    const STATUSES: &'static [(Kind, &'static str)] = &[
        (
            Kind::BadRequest,
            "Malformed body or invalid field (INVALID_REQUEST, INVALID_PHONE, INVALID_PIN, INVALID_HANDLE, INVALID_OTP, OTP_EXPIRED, INVALID_TEMP_TOKEN)",
        ),
        (
            Kind::Unauthorized,
            "Not authenticated (INVALID_CREDENTIALS, INVALID_TOKEN, TOKEN_EXPIRED, INVALID_REFRESH_TOKEN, REFRESH_TOKEN_EXPIRED)",
        ),
        (
            Kind::Forbidden,
            "ACCOUNT_LOCKED or FORBIDDEN",
        ),
        (
            Kind::NotFound,
            "NOT_FOUND, PHONE_NOT_FOUND, ACCOUNT_NOT_FOUND",
        ),
        (
            Kind::MethodNotAllowed,
            "Wrong method for this path",
        ),
        (
            Kind::Conflict,
            "HANDLE_TAKEN, HANDLE_RESERVED, PHONE_EXISTS",
        ),
        (
            Kind::PayloadTooLarge,
            "Body too large",
        ),
        (
            Kind::UnsupportedMediaType,
            "Body is not JSON",
        ),
        (
            Kind::TooManyRequests,
            "RATE_LIMITED, TOO_MANY_ATTEMPTS, HANDLE_COOLDOWN, OTP_COOLDOWN (one code a minute per phone and purpose), COUNTRY_SMS_LIMIT (the hour's codes to the phone's country calling code are sent), OTP_LOCKED (too many wrong codes for the phone over a rolling 24 h; details locked_until); details retry_after and Retry-After on RATE_LIMITED, OTP_COOLDOWN, COUNTRY_SMS_LIMIT and OTP_LOCKED",
        ),
        (
            Kind::Internal,
            "INTERNAL_ERROR",
        ),
    ];
}

#[derive(OpenApi)]
#[openapi(
    info(title = "Switchboard identity service", version = "1.0",
         description = "Phone and PIN accounts, handles, sessions and KYC."),
    modifiers(&BearerScheme),
    tags((name = "auth"), (name = "users"), (name = "sessions"), (name = "kyc"), (name = "health"))
)]
struct ApiDoc;

/// What the document says besides the routes, whose paths `routes()` adds.
pub fn document() -> utoipa::openapi::OpenApi {
    ApiDoc::openapi()
}
