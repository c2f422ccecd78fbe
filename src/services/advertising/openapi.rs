//! The advertising platform's OpenAPI document besides its paths (collected from the routes).

use super::error::AdvertisingEnvelope;
use crate::core::error::{ErrorDocs, ErrorResponses, Kind};
use crate::core::http::BearerScheme;
use utoipa::OpenApi;

/// Every error the service can answer, in its envelope.
pub type Errors = ErrorResponses<AdvertisingErrors>;

pub struct AdvertisingErrors;

impl ErrorDocs for AdvertisingErrors {
    type Envelope = AdvertisingEnvelope;
    const STATUSES: &'static [(Kind, &'static str)] = &[
        (
            Kind::BadRequest,
            "validation_error (details.field names the field), invalid_otp (details.attemptsRemaining), otp_expired, video_not_ready, budget_exhausted, insufficient_balance, invalid_token (a mailed link unknown, used or expired)",
        ),
        (Kind::Unauthorized, "unauthorized: a missing, invalid, expired or signed-out token; invalid_credentials (wrong email or password)"),
        (Kind::Forbidden, "forbidden (another kind of account), account_banned, email_not_verified"),
        (
            Kind::NotFound,
            "not_found, ad_not_found, category_not_found, country_not_found, subscription_not_found, screenshot_not_found, transaction_not_found, ticket_not_found, video_not_found, device_token_not_found (unknown ids and other posters' records alike)",
        ),
        (Kind::MethodNotAllowed, "method_not_allowed"),
        (
            Kind::Conflict,
            "already_subscribed, email_taken, ad_not_available, screenshot_pending, screenshot_already_approved, ticket_closed",
        ),
        (Kind::PayloadTooLarge, "payload_too_large"),
        (Kind::UnsupportedMediaType, "unsupported_media_type"),
        (
            Kind::TooManyRequests,
            "rate_limit_exceeded, otp_cooldown (one code a minute per phone), otp_locked (five wrong codes: 15 minutes), country_sms_limit (the hour's codes to the phone's country calling code are sent); retryAfter in the body and the Retry-After header",
        ),
        (Kind::Internal, "{error: \"Internal server error\"} only"),
    ];
}

#[derive(OpenApi)]
#[openapi(
    info(title = "Switchboard advertising platform", version = "1.0",
         description = "Posters subscribe to ads, post personalised videos, prove it with screenshots and earn."),
    modifiers(&BearerScheme, &DashboardKey),
    tags((name = "auth"), (name = "users"), (name = "ads"), (name = "subscriptions"), (name = "screenshots"), (name = "money"), (name = "support"), (name = "places"), (name = "media"), (name = "health"), (name = "advertisers"), (name = "admin"), (name = "payments"))
)]
struct ApiDoc;

/// The website's `X-API-Key` of `GET /api/dashboard/metrics`.
struct DashboardKey;

impl utoipa::Modify for DashboardKey {
    fn modify(&self, api: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityScheme};
        api.components
            .get_or_insert_with(Default::default)
            .add_security_scheme(
                "api_key",
                SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::new("X-API-Key"))),
            );
    }
}

/// What the document says besides the routes, whose paths `routes()` adds.
pub fn document() -> utoipa::openapi::OpenApi {
    ApiDoc::openapi()
}
