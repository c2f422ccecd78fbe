//! The marketplace's OpenAPI document besides its paths (collected from the routes).

use crate::core::error::{ErrorDocs, ErrorResponses, Kind};
use crate::core::http::BearerScheme;
use crate::services::marketplace::error::MarketplaceEnvelope;
use utoipa::OpenApi;

/// Every error the service can answer, in its envelope.
pub type Errors = ErrorResponses<MarketplaceErrors>;

pub struct MarketplaceErrors;

impl ErrorDocs for MarketplaceErrors {
    type Envelope = MarketplaceEnvelope;
    const STATUSES: &'static [(Kind, &'static str)] = &[
        (
            Kind::BadRequest,
            "validation_error (details {field, value}), invalid_otp (details attemptsRemaining), otp_expired, invalid_reset_token",
        ),
        (
            Kind::Unauthorized,
            "invalid_token, invalid_credentials, invalid_refresh_token",
        ),
        (
            Kind::Forbidden,
            "forbidden, not_owner, self_review, own_car, not_receiver, phone_not_verified (every write of an account whose phone is not verified)",
        ),
        (
            Kind::NotFound,
            "not_found, dealer_not_found, car_not_found, make_not_found, model_not_found, comment_not_found, user_not_found, message_not_found",
        ),
        (Kind::MethodNotAllowed, "method_not_allowed"),
        (
            Kind::NotAcceptable,
            "not_acceptable: Accept names only another API version",
        ),
        (
            Kind::Conflict,
            "phone_exists, already_dealer, application_exists, review_exists, car_not_available, applicant_phone_not_verified",
        ),
        (Kind::PayloadTooLarge, "payload_too_large"),
        (Kind::UnsupportedMediaType, "unsupported_media_type"),
        (
            Kind::TooManyRequests,
            "rate_limit_exceeded (retryAfter in the body, Retry-After header), otp_cooldown (forgot-password, resend-otp: one code a minute per phone and purpose; retryAfter), account_locked (login: too many wrong passwords), otp_locked (verify-signup, verify-forgot-password: too many wrong codes for the phone over 24 h); both with retryAfter and details lockedUntil",
        ),
        (Kind::Internal, "internal_error"),
    ];
}

#[derive(OpenApi)]
#[openapi(
    info(title = "Switchboard car marketplace", version = "1.0",
         description = "Phone-verified accounts, car listings, dealers and customers."),
    modifiers(&BearerScheme),
    tags((name = "auth"), (name = "ai"), (name = "cars"), (name = "catalogue"), (name = "interactions"), (name = "customers"), (name = "dealers"), (name = "messages"), (name = "health"))
)]
struct ApiDoc;

/// What the document says besides the routes, whose paths `routes()` adds.
pub fn document() -> utoipa::openapi::OpenApi {
    ApiDoc::openapi()
}
