//! Wire shapes of `/api/v1/sessions…`. Successful answers are the spec's objects as they are
//! (no envelope); errors use the envelope of `error.rs`.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use switchboard_actors::interview::{MessageView, ReportSummary, ScoreView};
use switchboard_entities::interview::session::{self, SessionStatus};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// Session creation input. candidate_name and job_title are required.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateSession {
    /// 1–200 characters.
    #[schema(min_length = 1, max_length = 200)]
    pub candidate_name: String,
    /// E.164, e.g. +4917667111638; required when send_sms is true.
    #[schema(pattern = r"^\+[1-9][0-9]{6,14}$")]
    pub candidate_phone: Option<String>,
    #[schema(format = Email)]
    pub candidate_email: Option<String>,
    /// 1–200 characters.
    #[schema(min_length = 1, max_length = 200)]
    pub job_title: String,
    /// Free text up to 100 characters (e.g. engineering, sales, trades).
    #[schema(max_length = 100)]
    pub job_category: Option<String>,
    /// Up to 20,000 characters.
    #[schema(max_length = 20000)]
    pub job_description: Option<String>,
    /// Free text up to 100 characters; junior/entry, mid, senior/lead shape the questions.
    #[schema(max_length = 100)]
    pub experience_level: Option<String>,
    pub user_id: Option<String>,
    pub application_id: Option<String>,
    pub cv_url: Option<String>,
    /// Up to 100,000 characters.
    #[schema(max_length = 100000)]
    pub cv_text: Option<String>,
    /// 1 to `max_questions_limit` (default config: 50, the maximum shown); default 8.
    #[schema(minimum = 1, maximum = 50)]
    pub max_questions: Option<i64>,
    /// 1 to `time_limit_minutes_limit` (default config: 240, the maximum shown); default 30.
    #[schema(minimum = 1, maximum = 240)]
    pub time_limit_minutes: Option<i64>,
    /// http(s) address notified on completion (at least once, retried for over a day,
    /// deduplicate by X-Webhook-Delivery-ID; see the sessions tag).
    #[schema(format = "uri", pattern = "^https?://")]
    pub webhook_url: Option<String>,
    /// Send the candidate the interview link by SMS (needs candidate_phone).
    pub send_sms: Option<bool>,
    /// Free key-value pairs (a JSON object up to 16 KiB), returned as given.
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Value>,
}

/// An interview session (creation response, by token, by id, in lists).
#[derive(Debug, Serialize, ToSchema)]
pub struct SessionView {
    pub id: Uuid,
    pub session_id: Uuid,
    pub session_token: String,
    pub candidate_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidate_email: Option<String>,
    pub job_title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job_category: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub experience_level: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub application_id: Option<String>,
    /// pending, in_progress, paused or completed.
    pub status: String,
    pub max_questions: i32,
    pub time_limit_minutes: i32,
    pub questions_asked: i32,
    /// Seconds left on the time limit (it stops while paused).
    pub remaining_seconds: i64,
    pub interview_url: String,
    #[schema(value_type = Object)]
    pub metadata: Value,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_at: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<DateTime<Utc>>,
    /// On creation only: whether the SMS with the link was handed to the provider.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sms_sent: Option<bool>,
}

impl SessionView {
    pub fn new(s: &session::Model, public_url: &str, now: DateTime<Utc>) -> Self {
        let running = s
            .running_since
            .map_or(0, |r| (now - r).num_seconds().max(0));
        let limit = i64::from(s.time_limit_minutes) * 60;
        let remaining = if s.status == SessionStatus::Completed {
            0
        } else {
            (limit - s.elapsed_secs - running).max(0)
        };
        Self {
            id: s.id,
            session_id: s.id,
            session_token: s.session_token.clone(),
            candidate_name: s.candidate_name.clone(),
            candidate_email: s.candidate_email.clone(),
            job_title: s.job_title.clone(),
            job_category: s.job_category.clone(),
            experience_level: s.experience_level.clone(),
            user_id: s.user_id.clone(),
            application_id: s.application_id.clone(),
            status: s.status.to_string(),
            max_questions: s.max_questions,
            time_limit_minutes: s.time_limit_minutes,
            questions_asked: s.questions_asked,
            remaining_seconds: remaining,
            interview_url: interview_url(public_url, &s.session_token),
            metadata: s.metadata.clone(),
            created_at: s.created_at,
            expires_at: s.expires_at,
            started_at: s.started_at,
            completed_at: s.completed_at,
            sms_sent: None,
        }
    }
}

pub fn interview_url(public_url: &str, token: &str) -> String {
    format!("{}/interview/{token}", public_url.trim_end_matches('/'))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct SessionList {
    pub sessions: Vec<SessionView>,
    pub total: u64,
    pub limit: u64,
    pub offset: u64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct StartResponse {
    pub session_id: Uuid,
    /// in_progress
    pub status: String,
    pub greeting: MessageView,
    /// The first question, asked right after the greeting.
    pub first_question: MessageView,
    pub time_limit_minutes: i32,
    pub max_questions: i32,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct StatusResponse {
    pub session_id: Uuid,
    pub status: String,
    pub remaining_seconds: i64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CompleteResponse {
    pub session_id: Uuid,
    /// completed
    pub status: String,
    pub closing_message: String,
    pub report: ReportSummary,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AnswerRequest {
    /// The candidate's answer, 1–10,000 characters.
    pub content: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AnswerResponse {
    pub answer: MessageView,
    pub score: ScoreView,
    /// The next question, or the closing message when this answer ended the interview.
    pub next_message: MessageView,
    /// Session status after the answer (completed after the last question).
    pub status: String,
    /// The report summary when this answer completed the interview.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report: Option<ReportSummary>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MessagesQuery {
    /// 1–200, default 50: the latest messages before `before`.
    pub limit: Option<u64>,
    /// ISO 8601 timestamp; only messages created strictly before it.
    pub before: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MessageList {
    /// Oldest first.
    pub messages: Vec<MessageView>,
    /// All messages of the session.
    pub total: u64,
}
