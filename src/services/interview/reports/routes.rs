//! `/api/v1/sessions/{id}/report` and its PDF: the report of a completed session, full for
//! the backend, the candidate's view for the candidate.

use super::super::caller::{session_and_caller, Caller};
use super::super::error::{InterviewError, Result};
use super::super::openapi::Errors;
use super::super::state::InterviewState;
use super::dto::*;
use super::pdf;
use super::store;
use crate::core::error::ApiError;
use actix_web::http::header;
use actix_web::{get, web, HttpRequest, HttpResponse};
use switchboard_actors::interview::{Report, SessionStatus};
use switchboard_entities::interview::session;

async fn load_report(st: &InterviewState, s: &session::Model) -> Result<Report> {
    let row = store::find(&st.core.db, s.id).await?;
    match row {
        Some(r) => serde_json::from_value(r.data).map_err(ApiError::internal),
        None => Err(InterviewError::InvalidState {
            action: "report on",
            status: s.status,
            allowed: &[SessionStatus::Completed],
        }
        .into()),
    }
}

/// The report of a completed session. The API key reads the full report; the candidate's
/// session token reads the candidate view (scores and feedback, without the recommendation,
/// red flags, follow-up questions or executive summary).
#[utoipa::path(operation_id = "get_report", tag = "reports",
    params(("session_id" = String, Path),
           ("X-API-Key" = Option<String>, Header, description = "Backend: the full Report"),
           ("X-Session-Token" = Option<String>, Header, description = "Candidate: the CandidateReport view")),
    responses((status = 200, description = "Report (X-API-Key) or CandidateReport (X-Session-Token)",
        body = ReportView), Errors))]
#[get("/api/v1/sessions/{session_id}/report")]
pub async fn report(
    st: web::Data<InterviewState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let (s, caller) = session_and_caller(&st, &req, &id).await?;
    let r = load_report(&st, &s).await?;
    Ok(match caller {
        Caller::Backend => HttpResponse::Ok().json(r),
        Caller::Candidate => HttpResponse::Ok().json(CandidateReport::from(r)),
    })
}

/// The full report as a PDF download (X-API-Key only; a session token is refused with 403).
#[utoipa::path(operation_id = "get_report_pdf", tag = "reports",
    params(("session_id" = String, Path),
           ("X-API-Key" = String, Header, description = "Backend only; X-Session-Token answers 403 FORBIDDEN")),
    responses((status = 200, description = "PDF document", content_type = "application/pdf"), Errors))]
#[get("/api/v1/sessions/{session_id}/report/pdf")]
pub async fn report_pdf(
    st: web::Data<InterviewState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let (s, caller) = session_and_caller(&st, &req, &id).await?;
    if caller != Caller::Backend {
        return Err(InterviewError::Forbidden(
            "the PDF report is the full report: it needs X-API-Key; the candidate reads GET …/report"
                .into(),
        ).into());
    }
    let r = load_report(&st, &s).await?;
    let writer = st.providers.pdf.clone();
    let bytes = web::block(move || pdf::render(&writer, &r))
        .await
        .map_err(ApiError::internal)?;
    Ok(HttpResponse::Ok()
        .content_type("application/pdf")
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"interview-report-{}.pdf\"", s.id),
        ))
        .body(bytes))
}
