//! `/api/v1/sessions…`: creation and reads go to the database; every state change goes
//! through the session's actor, which also tells the session's sockets.

use super::super::caller::{self, session_and_caller, session_for};
use super::super::error::{InterviewError, Result};
use super::super::openapi::Errors;
use super::super::state::InterviewState;
use super::domain::{parse_answer, parse_create};
use super::dto::*;
use super::store;
use crate::core::auth::{AdminKey, ServiceKey};
use crate::core::json_body::Json;
use crate::core::page::{Bounds, PageQuery};
use crate::core::secrets::random_token;
use crate::providers::sms::SmsMessage;
use actix_web::{delete, get, post, web, HttpRequest, HttpResponse};
use chrono::{DateTime, Duration};
use sea_orm::{ActiveModelTrait, Set};
use serde_json::json;
use switchboard_actors::interview::{MessageView, SessionStatus};
// `report` is the handler (a route macro makes it a type), so the entity goes by another name.
use switchboard_entities::interview::{message, session};
use uuid::Uuid;

fn view(st: &InterviewState, s: &session::Model) -> SessionView {
    SessionView::new(s, &st.cfg.public_url, st.core.now())
}

/// Create an interview session.
#[utoipa::path(operation_id = "create_session", tag = "sessions",
    params(("X-API-Key" = String, Header, description = "Service key"),
           ("X-Webhook-Secret" = Option<String>, Header, description = "Signs the completion webhook")),
    request_body = CreateSession,
    // Links let clients (and schemathesis) follow a new session to what acts on it.
    responses((status = 201, body = SessionView,
        links(
            ("Get" = (operation_id = "get_session", parameters(("session_id" = "$response.body#/id")))),
            ("Start" = (operation_id = "start_session", parameters(("session_id" = "$response.body#/id")))),
            ("Pause" = (operation_id = "pause_session", parameters(("session_id" = "$response.body#/id")))),
            ("Resume" = (operation_id = "resume_session", parameters(("session_id" = "$response.body#/id")))),
            ("Complete" = (operation_id = "complete_session", parameters(("session_id" = "$response.body#/id")))),
            ("Answer" = (operation_id = "post_answer", parameters(("session_id" = "$response.body#/id")))),
            ("Messages" = (operation_id = "list_session_messages", parameters(("session_id" = "$response.body#/id")))),
            ("Report" = (operation_id = "get_report", parameters(("session_id" = "$response.body#/id")))),
            ("ReportPdf" = (operation_id = "get_report_pdf", parameters(("session_id" = "$response.body#/id")))),
            ("Delete" = (operation_id = "delete_session", parameters(("session_id" = "$response.body#/id")))),
            ("ByToken" = (operation_id = "get_session_by_token", parameters(("token" = "$response.body#/session_token")))))),
        Errors))]
#[post("/api/v1/sessions")]
pub async fn create(
    _key: ServiceKey,
    st: web::Data<InterviewState>,
    req: HttpRequest,
    body: Json<CreateSession>,
) -> Result<HttpResponse> {
    let secret = match req.headers().get("X-Webhook-Secret") {
        None => None,
        Some(v) => {
            let s = v.to_str().map_err(|_| {
                InterviewError::InvalidRequest("X-Webhook-Secret must be printable text".into())
            })?;
            if s.is_empty() || s.len() > 256 {
                return Err(InterviewError::InvalidRequest(
                    "X-Webhook-Secret must be 1–256 characters".into(),
                )
                .into());
            }
            Some(s.to_owned())
        }
    };
    let input = parse_create(
        body.into_inner(),
        &st.cfg,
        st.cfg.webhook.allow_private_urls,
    )?;
    let now = st.core.now();
    let saved = session::ActiveModel {
        id: Set(Uuid::new_v4()),
        session_token: Set(random_token(32)),
        candidate_name: Set(input.candidate_name),
        candidate_phone: Set(input.candidate_phone),
        candidate_email: Set(input.candidate_email),
        job_title: Set(input.job_title),
        job_category: Set(input.job_category),
        job_description: Set(input.job_description),
        experience_level: Set(input.experience_level),
        user_id: Set(input.user_id),
        application_id: Set(input.application_id),
        cv_url: Set(input.cv_url),
        cv_text: Set(input.cv_text),
        max_questions: Set(input.max_questions),
        time_limit_minutes: Set(input.time_limit_minutes),
        webhook_url: Set(input.webhook_url),
        webhook_secret: Set(secret),
        send_sms: Set(input.send_sms),
        metadata: Set(input.metadata),
        status: Set(SessionStatus::Pending),
        questions_asked: Set(0),
        elapsed_secs: Set(0),
        running_since: Set(None),
        started_at: Set(None),
        completed_at: Set(None),
        completion_reason: Set(None),
        created_at: Set(now),
        expires_at: Set(now + Duration::hours(st.cfg.session_ttl_hours.max(1))),
        updated_at: Set(now),
    }
    .insert(&st.core.db)
    .await?;
    let mut out = view(&st, &saved);
    if saved.send_sms {
        out.sms_sent = Some(send_link(&st, &saved, &out.interview_url).await);
    }
    Ok(HttpResponse::Created().json(out))
}

/// The interview link by SMS. A failed send does not undo the session: the caller sees
/// `sms_sent: false` and can share the link another way.
async fn send_link(st: &InterviewState, s: &session::Model, url: &str) -> bool {
    let Some(phone) = s.candidate_phone.as_deref() else {
        return false;
    };
    let body = format!(
        "Hi {}, your interview for {} is ready: {url}",
        s.candidate_name, s.job_title
    );
    match st
        .providers
        .sms
        .send(&SmsMessage {
            to: phone,
            body: &body,
            service: "interview",
            status_callback: None,
        })
        .await
    {
        Ok(_) => true,
        Err(e) => {
            tracing::warn!(session = %s.id, error = %e, "interview link SMS failed");
            false
        }
    }
}

/// A session by its token (the candidate front end).
#[utoipa::path(operation_id = "get_session_by_token", tag = "sessions",
    params(("token" = String, Path)),
    responses((status = 200, body = SessionView), Errors))]
#[get("/api/v1/sessions/token/{token}")]
pub async fn by_token(
    st: web::Data<InterviewState>,
    token: web::Path<String>,
) -> Result<HttpResponse> {
    let s = caller::by_token(&st, &token)
        .await?
        .ok_or_else(InterviewError::not_found)?;
    Ok(HttpResponse::Ok().json(view(&st, &s)))
}

/// A session by id (X-API-Key or X-Session-Token).
#[utoipa::path(operation_id = "get_session", tag = "sessions",
    params(("session_id" = String, Path),
           ("X-API-Key" = Option<String>, Header), ("X-Session-Token" = Option<String>, Header)),
    responses((status = 200, body = SessionView), Errors))]
#[get("/api/v1/sessions/{session_id}")]
pub async fn by_id(
    st: web::Data<InterviewState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let s = session_for(&st, &req, &id).await?;
    Ok(HttpResponse::Ok().json(view(&st, &s)))
}

/// A user's sessions, newest first (X-API-Key).
#[utoipa::path(operation_id = "list_user_sessions", tag = "sessions",
    params(("user_id" = String, Path), ("X-API-Key" = String, Header), PageQuery),
    responses((status = 200, body = SessionList), Errors))]
#[get("/api/v1/sessions/user/{user_id}")]
pub async fn by_user(
    _key: ServiceKey,
    st: web::Data<InterviewState>,
    user_id: web::Path<String>,
    q: web::Query<PageQuery>,
) -> Result<HttpResponse> {
    let window = q.window(Bounds::new(20, 100))?;
    let page = store::by_user(&st.core.db, &user_id, window).await?;
    let meta = page.offset_meta();
    Ok(HttpResponse::Ok().json(SessionList {
        sessions: page.items.iter().map(|s| view(&st, s)).collect(),
        total: meta.total,
        limit: meta.limit,
        offset: meta.offset,
    }))
}

/// Delete a session with its messages and report (X-Admin-Key).
#[utoipa::path(operation_id = "delete_session", tag = "sessions",
    params(("session_id" = String, Path), ("X-Admin-Key" = String, Header)),
    responses((status = 204, description = "Deleted"), Errors))]
#[delete("/api/v1/sessions/{session_id}")]
pub async fn delete(
    _admin: AdminKey,
    st: web::Data<InterviewState>,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let id = caller::parse_id(&id)?;
    st.registry.stop(id).await;
    if !store::delete(&st.core.db, id).await? {
        return Err(InterviewError::not_found().into());
    }
    Ok(HttpResponse::NoContent().finish())
}

/// Start: pending → in_progress; greeting and first question.
#[utoipa::path(operation_id = "start_session", tag = "sessions",
    params(("session_id" = String, Path),
           ("X-API-Key" = Option<String>, Header), ("X-Session-Token" = Option<String>, Header)),
    responses((status = 200, body = StartResponse), Errors))]
#[post("/api/v1/sessions/{session_id}/start")]
pub async fn start(
    st: web::Data<InterviewState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let s = session_for(&st, &req, &id).await?;
    let out = st.registry.start(s.id).await?;
    Ok(HttpResponse::Ok().json(StartResponse {
        session_id: s.id,
        status: out.session.status.to_string(),
        greeting: out.greeting,
        first_question: out.question,
        time_limit_minutes: out.session.time_limit_minutes,
        max_questions: out.session.max_questions,
    }))
}

fn status_response(st: &InterviewState, s: &session::Model) -> StatusResponse {
    StatusResponse {
        session_id: s.id,
        status: s.status.to_string(),
        remaining_seconds: view(st, s).remaining_seconds,
    }
}

/// Pause: in_progress → paused; the time limit stops.
#[utoipa::path(operation_id = "pause_session", tag = "sessions",
    params(("session_id" = String, Path),
           ("X-API-Key" = Option<String>, Header), ("X-Session-Token" = Option<String>, Header)),
    responses((status = 200, body = StatusResponse), Errors))]
#[post("/api/v1/sessions/{session_id}/pause")]
pub async fn pause(
    st: web::Data<InterviewState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let s = session_for(&st, &req, &id).await?;
    let s = st.registry.pause(s.id).await?;
    Ok(HttpResponse::Ok().json(status_response(&st, &s)))
}

/// Resume: paused → in_progress.
#[utoipa::path(operation_id = "resume_session", tag = "sessions",
    params(("session_id" = String, Path),
           ("X-API-Key" = Option<String>, Header), ("X-Session-Token" = Option<String>, Header)),
    responses((status = 200, body = StatusResponse), Errors))]
#[post("/api/v1/sessions/{session_id}/resume")]
pub async fn resume(
    st: web::Data<InterviewState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let s = session_for(&st, &req, &id).await?;
    let s = st.registry.resume(s.id).await?;
    Ok(HttpResponse::Ok().json(status_response(&st, &s)))
}

/// Complete: in_progress or paused → completed; closing message and report.
#[utoipa::path(operation_id = "complete_session", tag = "sessions",
    params(("session_id" = String, Path),
           ("X-API-Key" = Option<String>, Header), ("X-Session-Token" = Option<String>, Header)),
    responses((status = 200, body = CompleteResponse), Errors))]
#[post("/api/v1/sessions/{session_id}/complete")]
pub async fn complete(
    st: web::Data<InterviewState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse> {
    let (s, caller) = session_and_caller(&st, &req, &id).await?;
    let out = st.registry.complete(s.id).await?;
    Ok(HttpResponse::Ok().json(CompleteResponse {
        session_id: s.id,
        status: out.session.status.to_string(),
        closing_message: out.closing_message.content,
        report: caller.summary(out.report),
    }))
}

/// Answer the open question: the answer, its score and the next question.
#[utoipa::path(operation_id = "post_answer", tag = "messages",
    params(("session_id" = String, Path),
           ("X-API-Key" = Option<String>, Header), ("X-Session-Token" = Option<String>, Header)),
    request_body = AnswerRequest,
    responses((status = 200, body = AnswerResponse), Errors))]
#[post("/api/v1/sessions/{session_id}/messages")]
pub async fn answer(
    st: web::Data<InterviewState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: Json<AnswerRequest>,
) -> Result<HttpResponse> {
    let (s, caller) = session_and_caller(&st, &req, &id).await?;
    let content = parse_answer(&body.content)?;
    let out = st.registry.answer(s.id, content).await?;
    Ok(HttpResponse::Ok().json(AnswerResponse {
        answer: out.answer,
        score: out.score,
        next_message: out.next_message,
        status: out.session.status.to_string(),
        report: out.report.map(|r| caller.summary(r)),
    }))
}

/// The conversation, oldest first: the latest `limit` messages before `before`.
#[utoipa::path(operation_id = "list_session_messages", tag = "messages",
    params(("session_id" = String, Path), MessagesQuery,
           ("X-API-Key" = Option<String>, Header), ("X-Session-Token" = Option<String>, Header)),
    responses((status = 200, body = MessageList), Errors))]
#[get("/api/v1/sessions/{session_id}/messages")]
pub async fn messages(
    st: web::Data<InterviewState>,
    req: HttpRequest,
    id: web::Path<String>,
    q: web::Query<MessagesQuery>,
) -> Result<HttpResponse> {
    let s = session_for(&st, &req, &id).await?;
    let limit = Bounds::new(50, 200).limit(q.limit)?;
    let before = match q.before.as_deref() {
        None => None,
        Some(b) => Some(
            DateTime::parse_from_rfc3339(b)
                .map_err(|_| {
                    InterviewError::InvalidRequest("before must be an ISO 8601 timestamp".into())
                })?
                .to_utc(),
        ),
    };
    let (total, rows) = store::messages(&st.core.db, s.id, before, limit).await?;
    Ok(HttpResponse::Ok().json(MessageList {
        messages: rows
            .iter()
            .map(|m| MessageView::from_model(m, s.max_questions))
            .collect(),
        total,
    }))
}

/// The same session data the socket's `session_joined` carries.
pub fn joined_payload(
    st: &InterviewState,
    s: &session::Model,
    msgs: &[message::Model],
) -> serde_json::Value {
    json!({
        "session": view(st, s),
        "messages": msgs.iter().map(|m| MessageView::from_model(m, s.max_questions)).collect::<Vec<_>>(),
    })
}
