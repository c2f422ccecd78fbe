//! /api/v1/onboarding: start a chat and send it a message.

use super::super::caller::SESSION_TOKEN;
use super::super::error::{InterviewError, Result};
use super::super::openapi::Errors;
use super::super::state::InterviewState;
use super::domain::{extract, missing, question_for, FIELDS, GREETING};
use super::dto::{OnboardingMessage, OnboardingReply, OnboardingSession, OnboardingStart};
use super::store;
use crate::core::auth::{header, ServiceKey};
use crate::core::json_body::Json;
use crate::core::secrets::{constant_time_eq, random_token};
use actix_web::{post, web, HttpRequest, HttpResponse};
use sea_orm::{ActiveModelTrait, IntoActiveModel, Set};
use serde_json::{json, Value};
use switchboard_entities::interview::onboarding;
use uuid::Uuid;

/// Start an onboarding chat (X-API-Key).
#[utoipa::path(operation_id = "start_onboarding", tag = "onboarding",
    params(("X-API-Key" = String, Header)),
    request_body = OnboardingStart,
    responses((status = 201, body = OnboardingSession,
        links(
            ("Message" = (operation_id = "onboarding_message", parameters(("session_id" = "$response.body#/session_id")))))),
        Errors))]
#[post("/api/v1/onboarding/start")]
pub async fn start(
    _key: ServiceKey,
    st: web::Data<InterviewState>,
    body: Json<OnboardingStart>,
) -> Result<HttpResponse> {
    let user_id = body.user_id.trim();
    if user_id.is_empty() || user_id.chars().count() > 128 {
        return Err(
            InterviewError::InvalidRequest("user_id must be 1–128 characters".into()).into(),
        );
    }
    let kind = body.session_type.as_deref().unwrap_or("worker_onboarding");
    if kind != "worker_onboarding" {
        return Err(InterviewError::InvalidRequest(
            "session_type must be worker_onboarding".into(),
        )
        .into());
    }
    let now = st.core.now();
    let row = onboarding::ActiveModel {
        id: Set(Uuid::new_v4()),
        session_token: Set(random_token(32)),
        user_id: Set(user_id.to_owned()),
        session_type: Set(kind.to_owned()),
        transcript: Set(
            json!([{"role": "assistant", "content": GREETING, "asking": "skills", "at": now}]),
        ),
        extracted_data: Set(json!({})),
        profile_complete: Set(false),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&st.core.db)
    .await?;
    Ok(HttpResponse::Created().json(OnboardingSession {
        session_id: row.id,
        session_token: row.session_token,
        greeting: GREETING.into(),
    }))
}

/// Answer the onboarding chat (X-Session-Token from start, or X-API-Key).
#[utoipa::path(operation_id = "onboarding_message", tag = "onboarding",
    params(("session_id" = String, Path),
           ("X-API-Key" = Option<String>, Header), ("X-Session-Token" = Option<String>, Header)),
    request_body = OnboardingMessage,
    responses((status = 200, body = OnboardingReply), Errors))]
#[post("/api/v1/onboarding/{session_id}/message")]
pub async fn message(
    st: web::Data<InterviewState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: Json<OnboardingMessage>,
) -> Result<HttpResponse> {
    let backend = ServiceKey::presented(&req);
    let token = header(&req, SESSION_TOKEN);
    if !backend && token.is_none() {
        return Err(InterviewError::Unauthorized(
            "send X-API-Key or the onboarding X-Session-Token".into(),
        )
        .into());
    }
    let row = match Uuid::parse_str(&id) {
        Ok(id) => store::find(&st.core.db, id).await?,
        Err(_) => None,
    };
    let row = match (row, backend, token) {
        (Some(r), true, _) => r,
        (Some(r), false, Some(t)) if constant_time_eq(t.as_bytes(), r.session_token.as_bytes()) => {
            r
        }
        (None, true, _) => {
            return Err(InterviewError::NotFound("onboarding session not found".into()).into())
        }
        _ => {
            return Err(InterviewError::Unauthorized(
                "the session token does not belong to this onboarding session".into(),
            )
            .into())
        }
    };
    let content = body.content.trim();
    if content.is_empty() || content.chars().count() > 5000 {
        return Err(
            InterviewError::InvalidRequest("content must be 1–5000 characters".into()).into(),
        );
    }
    let mut transcript = row.transcript.as_array().cloned().unwrap_or_default();
    let asking = transcript
        .iter()
        .rev()
        .find_map(|m| m.get("asking").and_then(Value::as_str).map(str::to_owned));
    let mut data = row.extracted_data.as_object().cloned().unwrap_or_default();
    extract(&mut data, content, asking.as_deref());
    let next = missing(&data);
    let complete = next.is_none();
    let response = match next {
        Some(f) => {
            let got: Vec<&str> = FIELDS
                .iter()
                .copied()
                .filter(|f| data.contains_key(*f))
                .collect();
            if got.is_empty() || Some(f) == asking.as_deref() {
                format!("Thanks! {}", question_for(f))
            } else {
                format!("Got it. {}", question_for(f))
            }
        }
        None => "Thank you! Your profile is complete. You can still send corrections at any time."
            .to_owned(),
    };
    let now = st.core.now();
    transcript.push(json!({"role": "user", "content": content, "at": now}));
    transcript.push(json!({"role": "assistant", "content": response, "asking": next, "at": now}));
    let mut am = row.into_active_model();
    am.transcript = Set(Value::Array(transcript));
    am.extracted_data = Set(Value::Object(data.clone()));
    am.profile_complete = Set(complete);
    am.updated_at = Set(now);
    am.update(&st.core.db).await?;
    Ok(HttpResponse::Ok().json(OnboardingReply {
        response,
        extracted_data: Value::Object(data),
        profile_complete: complete,
    }))
}
