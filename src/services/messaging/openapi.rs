//! The messaging service's OpenAPI document besides its paths: info, tags, components, security
//! and the error responses. The paths are collected from the routes (`routes()` in mod.rs);
//! `core::http::api_docs` serves the whole at /api-docs/openapi.json, with Swagger UI at
//! /api-docs/.

use super::error::ErrorEnvelope;
use super::error::MessagingEnvelope;
use super::messages::dto::*;
use crate::core::error::{ErrorDocs, ErrorResponses, Kind};
use utoipa::openapi::security::{ApiKey, ApiKeyValue, Http, HttpAuthScheme, SecurityScheme};
use utoipa::{Modify, OpenApi};

/// Every error the JSON endpoints can answer, in the spec's body.
pub type Errors = ErrorResponses<MessagingErrors>;

pub struct MessagingErrors;

/// The JSON errors of the carrier callbacks (which otherwise answer plain text).
pub type CarrierErrors = ErrorResponses<CarrierCallbackErrors>;

pub struct CarrierCallbackErrors;

impl ErrorDocs for CarrierCallbackErrors {
    type Envelope = MessagingEnvelope;
    const STATUSES: &'static [(Kind, &'static str)] = &[
        (Kind::PayloadTooLarge, "Body too large"),
        (Kind::Internal, "Internal error"),
    ];
}

impl ErrorDocs for MessagingErrors {
    type Envelope = MessagingEnvelope;
    const STATUSES: &'static [(Kind, &'static str)] = &[
        (
            Kind::BadRequest,
            "validation_error (invalid field, phone, e-mail, recipients, malformed JSON)",
        ),
        (
            Kind::Unauthorized,
            "unauthorized: missing or invalid X-API-Key (or bearer token)",
        ),
        (
            Kind::PaymentRequired,
            "insufficient_credits: the message names credits needed and held",
        ),
        (Kind::NotFound, "not_found"),
        (Kind::MethodNotAllowed, "method_not_allowed"),
        (
            Kind::Conflict,
            "idempotency_conflict: the Idempotency-Key was used with another body",
        ),
        (Kind::PayloadTooLarge, "payload_too_large"),
        (Kind::UnsupportedMediaType, "unsupported_media_type"),
        (
            Kind::Unprocessable,
            "recipient_opted_out: the recipient is on the workspace's suppression list",
        ),
        (
            Kind::TooManyRequests,
            "rate_limit_exceeded (with Retry-After)",
        ),
        (Kind::Internal, "internal_error"),
    ];
}

/// What a webhook receiver can rely on (docs/decisions.md, section nostall).
const WEBHOOK_DELIVERY: &str =
    "Each delivery is a POST of the JSON envelope `{id, type, created_at, data}` \
with X-Service-Event, X-Service-Delivery-ID (the envelope id) and X-Service-Signature. \
At least once: a delivery is retried under the same X-Service-Delivery-ID until the receiver \
answers 2xx within 30 s, so duplicates are possible; deduplicate by that id. \
Order is kept per message: a message's events (message.sent, then message.delivered or \
message.failed) arrive in the order they happened, each only after the one before it was \
accepted; events of different messages are independent, so one refused event holds back only \
the later events of its own message. credit.low and credit.depleted are each ordered among \
events of their own type. One delivery is in flight per webhook at a time. \
Retries: after 30 s, 2 min, 8 min, 32 min, 2 h 8 min, then every 6 h (±10 %; a longer \
Retry-After, up to 24 h, is honoured), 10 attempts in all, over more than a day. After two \
consecutive failed attempts the whole webhook waits as long as one delivery would after as \
many failures. 10 consecutive failed attempts deactivate the webhook; deliveries that fall due \
while it is inactive are skipped, not resent when it is activated again (PATCH is_active: true \
resets the count). Carrier-driven events (message.sent, message.delivered, message.failed, \
message.received) carry message_id, channel, recipient, status, error_code, error_message \
(null when there is no error) and timestamp (ISO 8601) in data, besides their own fields. \
contact.opted_out and contact.opted_in (a recipient texted STOP or START, used an unsubscribe \
link, bounced, complained, or the workspace changed its suppression list) carry channel, \
address, source (keyword, link, api, bounce, complaint), reason, message_id (the message that \
caused it, or null) and timestamp, and are ordered per contact (channel and address).";

struct Security;

impl Modify for Security {
    fn modify(&self, api: &mut utoipa::openapi::OpenApi) {
        let components = api.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "api_key",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::new("X-API-Key"))),
        );
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)),
        );
    }
}

#[derive(OpenApi)]
#[openapi(
    info(title = "Switchboard messaging service", version = "1.0",
         description = "SMS, email, WhatsApp and voice messages, bulk sends, credits, signed webhooks and carrier callbacks."),
    components(schemas(ErrorEnvelope, Content)),
    modifiers(&Security),
    tags((name = "messages"), (name = "account"), (name = "webhooks", description = WEBHOOK_DELIVERY), (name = "carrier"),
        (name = "suppressions", description = "Recipients the workspace may not send to: STOP texted back, one-click unsubscribes, bounces, complaints and the workspace's own additions, with every change kept"),
        (name = "unsubscribe", description = "The one-click unsubscribe links of bulk mail (RFC 8058), opened without a login"),
        (name = "health"))
)]
struct ApiDoc;

/// What the document says besides the routes, whose paths `routes()` adds.
pub fn document() -> utoipa::openapi::OpenApi {
    ApiDoc::openapi()
}
