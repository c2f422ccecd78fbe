//! The identity service's OpenAPI document besides its paths: info, tags, components, security
//! and the error responses. The paths are collected from the routes (`routes()` in mod.rs);
//! `core::http::api_docs` serves the whole at /api-docs/openapi.json, with Swagger UI at
//! /api-docs/.

use super::dto::*;
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::{Modify, OpenApi};

/// Every error the service can answer, in its envelope.
#[derive(utoipa::IntoResponses)]
#[allow(dead_code)]
pub enum Errors {
    /// Malformed body or invalid field (INVALID_REQUEST, INVALID_PHONE, INVALID_PIN, INVALID_HANDLE, INVALID_OTP, OTP_EXPIRED, INVALID_TEMP_TOKEN)
    #[response(status = 400)]
    BadRequest(ErrorEnvelope),
    /// Not authenticated (INVALID_CREDENTIALS, INVALID_TOKEN, TOKEN_EXPIRED, INVALID_REFRESH_TOKEN, REFRESH_TOKEN_EXPIRED)
    #[response(status = 401)]
    Unauthorized(ErrorEnvelope),
    /// ACCOUNT_LOCKED or FORBIDDEN
    #[response(status = 403)]
    Forbidden(ErrorEnvelope),
    /// NOT_FOUND, PHONE_NOT_FOUND, ACCOUNT_NOT_FOUND
    #[response(status = 404)]
    NotFound(ErrorEnvelope),
    /// Wrong method for this path
    #[response(status = 405)]
    MethodNotAllowed(ErrorEnvelope),
    /// HANDLE_TAKEN, HANDLE_RESERVED, PHONE_EXISTS
    #[response(status = 409)]
    Conflict(ErrorEnvelope),
    /// Body too large
    #[response(status = 413)]
    TooLarge(ErrorEnvelope),
    /// Body is not JSON
    #[response(status = 415)]
    UnsupportedMediaType(ErrorEnvelope),
    /// RATE_LIMITED, TOO_MANY_ATTEMPTS, HANDLE_COOLDOWN, OTP_LOCKED (too many wrong codes for the
    /// phone over a rolling 24 h; details locked_until, retry_after; Retry-After on RATE_LIMITED
    /// and OTP_LOCKED)
    #[response(status = 429)]
    TooManyRequests(ErrorEnvelope),
    /// INTERNAL_ERROR
    #[response(status = 500)]
    Internal(ErrorEnvelope),
}

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, api: &mut utoipa::openapi::OpenApi) {
        let components = api.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)),
        );
    }
}

#[derive(OpenApi)]
#[openapi(
    info(title = "Switchboard identity service", version = "1.0",
         description = "Phone and PIN accounts, handles, sessions and KYC."),
    components(schemas(ErrorEnvelope, ErrorBody)),
    modifiers(&BearerAuth),
    tags((name = "auth"), (name = "users"), (name = "sessions"), (name = "kyc"), (name = "health"))
)]
struct ApiDoc;

/// What the document says besides the routes, whose paths `routes()` adds.
pub fn document() -> utoipa::openapi::OpenApi {
    ApiDoc::openapi()
}
