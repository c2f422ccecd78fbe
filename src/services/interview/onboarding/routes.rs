//! Onboarding chat: a short conversation that gathers a service worker's profile. Each
//! answer is mined for every field it mentions; the reply asks for the next missing one.

use super::access::SESSION_TOKEN;
use super::dto::{OnboardingMessage, OnboardingReply, OnboardingSession, OnboardingStart};
use super::error::{InterviewError, Result};
use super::openapi::Errors;
use super::InterviewState;
use crate::core::auth::{header, ServiceKey};
use crate::core::json_body::Json;
use crate::core::secrets::{constant_time_eq, random_token};
use crate::providers::ai::find_skills;
use actix_web::{post, web, HttpRequest, HttpResponse};
use sea_orm::{ActiveModelTrait, EntityTrait, IntoActiveModel, Set};
use serde_json::{json, Map, Value};
use switchboard_entities::interview::onboarding;
use uuid::Uuid;

/// The profile fields, in the order they are asked for.
const FIELDS: [&str; 5] = [
    "skills",
    "years_experience",
    "service_area",
    "availability",
    "hourly_rate",
];

fn question_for(field: &str) -> &'static str {
    match field {
        "skills" => "What kind of work do you do? Tell me your main skills or trades (for example plumbing, electrical, cleaning).",
        "years_experience" => "How many years of experience do you have in this work?",
        "service_area" => "Which city or area do you serve?",
        "availability" => "When are you usually available (for example weekdays, evenings, weekends)?",
        _ => "What hourly rate do you charge?",
    }
}

const GREETING: &str = "Hi! I'll help you set up your worker profile with a few quick questions. What kind of work do you do? Tell me your main skills or trades.";

fn numbers(text: &str) -> Vec<f64> {
    text.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter_map(|w| w.trim_matches('.').parse::<f64>().ok())
        .collect()
}

const DAYS: [&str; 14] = [
    "weekdays",
    "weekends",
    "evenings",
    "mornings",
    "afternoons",
    "nights",
    "full-time",
    "part-time",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
];

const LANGUAGES: [&str; 10] = [
    "english",
    "spanish",
    "french",
    "german",
    "portuguese",
    "arabic",
    "swahili",
    "hindi",
    "chinese",
    "italian",
];

/// Updates `data` with whatever `text` says; `asking` is the field the last reply asked
/// for, which lets a bare answer ("5", "Berlin") count.
fn extract(data: &mut Map<String, Value>, text: &str, asking: Option<&str>) {
    let lower = text.to_lowercase();
    let mut skills = find_skills(text);
    if skills.is_empty() && asking == Some("skills") {
        skills = lower
            .split([',', ';', '\n'])
            .flat_map(|p| p.split(" and "))
            .map(|s| {
                s.trim()
                    .trim_start_matches("i do ")
                    .trim_start_matches("i am a ")
                    .trim()
            })
            .filter(|s| !s.is_empty() && s.len() <= 40)
            .map(str::to_owned)
            .take(10)
            .collect();
    }
    if !skills.is_empty() {
        let mut all: Vec<String> = data
            .get("skills")
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default();
        for s in skills {
            if !all.contains(&s) {
                all.push(s);
            }
        }
        data.insert("skills".into(), json!(all));
    }

    let nums = numbers(&lower);
    let mentions_years = lower.contains("year") || lower.contains("yr");
    let mentions_rate = lower.contains('$')
        || lower.contains('€')
        || lower.contains('£')
        || lower.contains("per hour")
        || lower.contains("an hour")
        || lower.contains("/h")
        || lower.contains("hourly");
    if mentions_years || (asking == Some("years_experience") && !mentions_rate) {
        if let Some(n) = nums.first().filter(|n| (0.0..=70.0).contains(*n)) {
            data.insert("years_experience".into(), json!(n.round() as i64));
        }
    }
    if mentions_rate || (asking == Some("hourly_rate") && !mentions_years) {
        let rate = if mentions_years && nums.len() > 1 {
            nums.last()
        } else {
            nums.first()
        };
        if let Some(r) = rate.filter(|r| **r > 0.0 && **r < 100_000.0) {
            data.insert("hourly_rate".into(), json!(r));
        }
    }

    let days: Vec<&str> = DAYS.iter().copied().filter(|d| lower.contains(d)).collect();
    if !days.is_empty() {
        data.insert("availability".into(), json!(days.join(", ")));
    } else if asking == Some("availability") && !text.trim().is_empty() {
        data.insert(
            "availability".into(),
            json!(text.trim().chars().take(100).collect::<String>()),
        );
    }
    let area = ["serve ", "based in ", "work in ", "around ", "live in "]
        .iter()
        .find_map(|m| lower.find(m).map(|i| &text[i + m.len()..]))
        .map(|rest| {
            rest.split(['.', ',', '\n'])
                .next()
                .unwrap_or("")
                .trim()
                .to_owned()
        })
        .filter(|a| !a.is_empty());
    if let Some(a) = area {
        data.insert(
            "service_area".into(),
            json!(a.chars().take(100).collect::<String>()),
        );
    } else if asking == Some("service_area") && !text.trim().is_empty() {
        data.insert(
            "service_area".into(),
            json!(text.trim().chars().take(100).collect::<String>()),
        );
    }
    let langs: Vec<&str> = LANGUAGES
        .iter()
        .copied()
        .filter(|l| lower.contains(l))
        .collect();
    if !langs.is_empty() {
        data.insert("languages".into(), json!(langs));
    }
}

fn missing(data: &Map<String, Value>) -> Option<&'static str> {
    FIELDS.iter().copied().find(|f| !data.contains_key(*f))
}

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
        Ok(id) => onboarding::Entity::find_by_id(id).one(&st.core.db).await?,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gathers_a_profile_from_free_text() {
        let mut d = Map::new();
        extract(
            &mut d,
            "I do plumbing and electrical work, 7 years now",
            Some("skills"),
        );
        assert_eq!(d["skills"], json!(["plumbing", "electrical"]));
        assert_eq!(d["years_experience"], json!(7));
        extract(&mut d, "Nairobi", Some("service_area"));
        extract(&mut d, "weekdays and saturday", Some("availability"));
        extract(&mut d, "25", Some("hourly_rate"));
        assert_eq!(d["hourly_rate"], json!(25.0));
        assert!(missing(&d).is_none());
    }
}
