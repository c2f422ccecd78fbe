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
        (Kind::Unauthorized, "unauthorized: a missing, invalid, expired or signed-out token (or enrolment token); invalid_credentials (wrong email or password); totp_required (an administrator with TOTP on: send totpCode or recoveryCode); invalid_totp_code (wrong or already used)"),
        (Kind::Forbidden, "forbidden (another kind of account), account_banned, email_not_verified, advertiser_suspended (paying, creating or editing ads while suspended), ad_not_available_in_country, totp_enrolment_required (require_admin_totp and no TOTP yet: details.enrolmentToken enrols and confirms), totp_mandatory"),
        (
            Kind::NotFound,
            "not_found, ad_not_found, category_not_found, country_not_found, subscription_not_found, screenshot_not_found, transaction_not_found, ticket_not_found, video_not_found, device_token_not_found, payment_not_found, advertiser_not_found, file_not_found (a staff link not made by this service) (unknown ids and other posters' records alike)",
        ),
        (Kind::MethodNotAllowed, "method_not_allowed"),
        (
            Kind::Conflict,
            "already_subscribed, email_taken, ad_not_available, screenshot_pending, screenshot_already_approved, ticket_closed, invalid_transition, video_not_ready, ad_not_editable (a rejected or paused ad), ad_changed (staff moved the ad while an edit was sent), advertiser_suspended (approving a suspended advertiser's ad), totp_already_enabled, totp_not_enrolled",
        ),
        (Kind::Gone, "link_expired: a video or staff link past its expiry (ask for the record again)"),
        (Kind::PayloadTooLarge, "payload_too_large"),
        (Kind::UnsupportedMediaType, "unsupported_media_type"),
        (
            Kind::TooManyRequests,
            "rate_limit_exceeded, otp_cooldown (one code a minute per phone), otp_locked (five wrong codes: 15 minutes), account_locked (advertiser or administrator sign-in: signin_max_failures failures in a row for the address from anywhere, known or not; even the right password waits), country_sms_limit (the hour's codes to the phone's country calling code are sent); retryAfter in the body and the Retry-After header",
        ),
        (Kind::Internal, "{error: \"Internal server error\"} only"),
    ];
}

#[derive(OpenApi)]
#[openapi(
    info(title = "Switchboard advertising platform", version = "1.0",
         description = "Posters subscribe to ads, post personalised videos, prove it with screenshots and earn."),
    modifiers(&BearerScheme, &DashboardKey),
    tags((name = "auth"), (name = "users"), (name = "ads"), (name = "subscriptions"), (name = "screenshots"), (name = "money"), (name = "support"), (name = "places"), (name = "media"), (name = "health"), (name = "advertisers"), (name = "admin"), (name = "payments"), (name = "console"))
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
