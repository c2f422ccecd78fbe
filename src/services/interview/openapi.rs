//! The interview service's OpenAPI document at /api-docs/openapi.json and Swagger UI at
//! /api-docs/ (served offline).

use super::dto::*;
use super::{health, onboarding, sessions};
use actix_web::web;
use switchboard_actors::interview::{
    Categories, Highlight, MessageView, Report, ReportSummary, ScoreView,
};
use utoipa::OpenApi;

/// Every error the service can answer, in its envelope.
#[derive(utoipa::IntoResponses)]
#[allow(dead_code)]
pub enum Errors {
    /// INVALID_REQUEST: malformed body, query or field
    #[response(status = 400)]
    BadRequest(ErrorEnvelope),
    /// UNAUTHORIZED: missing or wrong X-API-Key / X-Session-Token
    #[response(status = 401)]
    Unauthorized(ErrorEnvelope),
    /// FORBIDDEN: missing or wrong X-Admin-Key, or a session token on the backend-only PDF report
    #[response(status = 403)]
    Forbidden(ErrorEnvelope),
    /// NOT_FOUND
    #[response(status = 404)]
    NotFound(ErrorEnvelope),
    /// METHOD_NOT_ALLOWED
    #[response(status = 405)]
    MethodNotAllowed(ErrorEnvelope),
    /// INVALID_STATE: the session's status does not allow this (details: status, allowed_states)
    #[response(status = 409)]
    Conflict(ErrorEnvelope),
    /// SESSION_EXPIRED: past expires_at (details: expires_at)
    #[response(status = 410)]
    Gone(ErrorEnvelope),
    /// PAYLOAD_TOO_LARGE
    #[response(status = 413)]
    TooLarge(ErrorEnvelope),
    /// UNSUPPORTED_MEDIA_TYPE: body is not JSON
    #[response(status = 415)]
    UnsupportedMediaType(ErrorEnvelope),
    /// INTERNAL_ERROR
    #[response(status = 500)]
    Internal(ErrorEnvelope),
    /// SERVICE_UNAVAILABLE: the session could not be reached; retry
    #[response(status = 503)]
    Unavailable(ErrorEnvelope),
}

#[derive(OpenApi)]
#[openapi(
    info(title = "Switchboard interview service", version = "1.0",
         description = "AI-led candidate interviews with scoring and reports, and the onboarding chat. Live sessions also speak Socket.IO at /socket.io/: client events join_session {session_token}, send_message {content}, typing {is_typing}, pause, resume, complete; server events session_joined {session, messages}, message {message}, score {score}, status_update {session_id, status}, interview_complete {report} (the candidate's summary: no recommendation, recommendation_label, executive_summary or completion_reason), typing {is_typing, role}, error {message, code, details}. Access: X-API-Key (the backend) reaches every session and reads the full report and its PDF; X-Session-Token (the candidate) reaches only its own session and reads the candidate view of the report (scores and feedback, without recommendation, red flags, follow-up questions or executive summary); the PDF answers a session token 403 FORBIDDEN."),
    paths(
        health::health, health::api_health,
        sessions::create, sessions::by_token, sessions::by_id, sessions::by_user,
        sessions::delete, sessions::start, sessions::pause, sessions::resume,
        sessions::complete, sessions::answer, sessions::messages, sessions::report,
        sessions::report_pdf, onboarding::start, onboarding::message,
    ),
    components(schemas(ErrorEnvelope, ErrorBody, MessageView, ScoreView, Categories, Highlight,
        Report, ReportSummary, CandidateReport, ReportView)),
    tags((name = "sessions"), (name = "messages"), (name = "reports"), (name = "onboarding"), (name = "health"))
)]
struct ApiDoc;

pub fn docs(cfg: &mut web::ServiceConfig) {
    crate::core::http::api_docs(cfg, ApiDoc::openapi());
}
