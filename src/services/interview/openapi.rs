//! The interview service's OpenAPI document besides its paths: info, tags, components, security
//! and the error responses. The paths are collected from the routes (`routes()` in mod.rs);
//! `core::http::api_docs` serves the whole at /api-docs/openapi.json, with Swagger UI at
//! /api-docs/.

use super::error::InterviewEnvelope;
use super::reports::dto::*;
use crate::core::error::{ErrorDocs, ErrorResponses, Kind};
use switchboard_actors::interview::{
    Categories, Highlight, MessageView, Report, ReportSummary, ScoreView,
};
use utoipa::OpenApi;

/// Every error the service can answer, in its envelope.
pub type Errors = ErrorResponses<InterviewErrors>;

pub struct InterviewErrors;

impl ErrorDocs for InterviewErrors {
    type Envelope = InterviewEnvelope;
    const STATUSES: &'static [(Kind, &'static str)] = &[
        (
            Kind::BadRequest,
            "INVALID_REQUEST: malformed body, query or field",
        ),
        (
            Kind::Unauthorized,
            "UNAUTHORIZED: missing or wrong X-API-Key / X-Session-Token",
        ),
        (
            Kind::Forbidden,
            "FORBIDDEN: missing or wrong X-Admin-Key, or a session token on the backend-only PDF report",
        ),
        (
            Kind::NotFound,
            "NOT_FOUND",
        ),
        (
            Kind::MethodNotAllowed,
            "METHOD_NOT_ALLOWED",
        ),
        (
            Kind::Conflict,
            "INVALID_STATE: the session's status does not allow this (details: status, allowed_states)",
        ),
        (
            Kind::Gone,
            "SESSION_EXPIRED: past expires_at (details: expires_at)",
        ),
        (
            Kind::PayloadTooLarge,
            "PAYLOAD_TOO_LARGE",
        ),
        (
            Kind::UnsupportedMediaType,
            "UNSUPPORTED_MEDIA_TYPE: body is not JSON",
        ),
        (
            Kind::TooManyRequests,
            "RATE_LIMITED: over a per-client rate limit (details.retry_after; Retry-After header)",
        ),
        (
            Kind::Internal,
            "INTERNAL_ERROR",
        ),
        (
            Kind::Unavailable,
            "SERVICE_UNAVAILABLE: the session could not be reached; retry",
        ),
    ];
}

/// What a completion webhook receiver can rely on (docs/decisions.md, section ivhook).
const COMPLETION_WEBHOOK: &str =
    "Sessions created with a webhook_url are notified once they complete: a POST of \
`{event: \"interview.completed\", session_id, application_id, user_id, candidate_name, job_title, \
status, completed_at, metadata, report}` with X-Webhook-Event and X-Webhook-Delivery-ID. \
At least once: the delivery is retried under the same X-Webhook-Delivery-ID until the receiver \
answers 2xx within 30 s, so duplicates are possible; deduplicate by that id. Every other \
answer (4xx and redirects included, which are never followed) and every network error is \
retried after 30 s, 2 min, 8 min, 32 min, 2 h 8 min, then every 6 h (±10 %; a longer \
Retry-After, up to 24 h, is honoured), 10 attempts in all (default configuration), over more \
than a day; then it is given up. With an X-Webhook-Secret header at creation each attempt is signed: \
X-Webhook-Signature: sha256=<hex HMAC-SHA256(secret, body)>, and X-Webhook-Timestamp (Unix \
seconds of the attempt) with X-Webhook-Signature-V2: sha256=<hex HMAC-SHA256(secret, \
\"{timestamp}.{body}\")>; prefer V2 and refuse timestamps more than 5 minutes old.";

#[derive(OpenApi)]
#[openapi(
    info(title = "Switchboard interview service", version = "1.0",
         description = "AI-led candidate interviews with scoring and reports, and the onboarding chat. Live sessions also speak Socket.IO at /socket.io/: client events join_session {session_token}, send_message {content}, typing {is_typing}, pause, resume, complete; server events session_joined {session, messages}, message {message}, score {score}, status_update {session_id, status}, interview_complete {report} (the candidate's summary: no recommendation, recommendation_label, executive_summary or completion_reason), typing {is_typing, role}, error {message, code, details}. Access: X-API-Key (the backend) reaches every session and reads the full report and its PDF; X-Session-Token (the candidate) reaches only its own session and reads the candidate view of the report (scores and feedback, without recommendation, red flags, follow-up questions or executive summary); the PDF answers a session token 403 FORBIDDEN."),
    components(schemas(MessageView, ScoreView, Categories, Highlight,
        Report, ReportSummary, CandidateReport, ReportView)),
    tags((name = "sessions", description = COMPLETION_WEBHOOK), (name = "messages"), (name = "reports"), (name = "onboarding"), (name = "health"))
)]
struct ApiDoc;

/// What the document says besides the routes, whose paths `routes()` adds.
pub fn document() -> utoipa::openapi::OpenApi {
    ApiDoc::openapi()
}
