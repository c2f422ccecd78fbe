//! The interview's domain values and their wire shapes.

pub use super::evidence::AnswerScore;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use switchboard_entities::interview::{message, session};
use utoipa::ToSchema;
use uuid::Uuid;

/// What the interviewer knows about the job and the candidate.
#[derive(Debug, Clone, Default)]
pub struct JobProfile {
    pub candidate_name: String,
    pub job_title: String,
    pub job_category: Option<String>,
    pub job_description: Option<String>,
    pub experience_level: Option<String>,
    pub cv_text: Option<String>,
    pub max_questions: u32,
    pub time_limit_minutes: u32,
    /// Stable per session, so a built-in interviewer varies between sessions yet repeats
    /// itself for the same one.
    pub seed: u64,
}

impl JobProfile {
    pub fn from_session(s: &session::Model) -> Self {
        let b = s.id.as_bytes();
        let seed = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
        Self {
            candidate_name: s.candidate_name.clone(),
            job_title: s.job_title.clone(),
            job_category: s.job_category.clone(),
            job_description: s.job_description.clone(),
            experience_level: s.experience_level.clone(),
            cv_text: s.cv_text.clone(),
            max_questions: u32::try_from(s.max_questions).unwrap_or(1),
            time_limit_minutes: u32::try_from(s.time_limit_minutes).unwrap_or(1),
            seed,
        }
    }
}

/// Rubric categories every answer is scored on.
pub const CATEGORIES: [&str; 4] = [
    "technical",
    "communication",
    "problem_solving",
    "cultural_fit",
];

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Question {
    pub content: String,
    /// One of [`CATEGORIES`].
    pub category: String,
    pub suggestions: Vec<String>,
}

/// One earlier question and its answer, for interviewers that adapt.
#[derive(Debug, Clone)]
pub struct Turn {
    pub question: String,
    pub category: String,
    pub answer: String,
}

/// A message as clients see it (REST and the `message` event).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct MessageView {
    pub id: Uuid,
    pub session_id: Uuid,
    /// `interviewer` or `candidate`.
    pub role: String,
    /// `greeting`, `question`, `answer` or `closing`.
    pub message_type: String,
    pub content: String,
    pub sequence_number: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub question_number: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub question_category: Option<String>,
    /// Same as `question_category`, the name the spec uses after an answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_questions: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestions: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<ScoreView>,
    pub created_at: DateTime<Utc>,
}

impl MessageView {
    pub fn from_model(m: &message::Model, total_questions: i32) -> Self {
        let is_question = m.message_type == "question";
        Self {
            id: m.id,
            session_id: m.session_id,
            role: m.role.clone(),
            message_type: m.message_type.clone(),
            content: m.content.clone(),
            sequence_number: m.sequence_number,
            question_number: m.question_number,
            question_category: m.question_category.clone(),
            category: m.question_category.clone(),
            total_questions: is_question.then_some(total_questions),
            suggestions: m
                .suggestions
                .as_ref()
                .and_then(|v| serde_json::from_value(v.clone()).ok()),
            score: m
                .score
                .as_ref()
                .and_then(|v| serde_json::from_value::<AnswerScore>(v.clone()).ok())
                .map(|s| ScoreView::new(m.id, &s)),
            created_at: m.created_at,
        }
    }
}

/// The `score` of an answer: the spec's composite_score and summary, plus the categories.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ScoreView {
    pub message_id: Uuid,
    pub composite_score: f64,
    pub summary: String,
    pub categories: Categories,
}

impl ScoreView {
    pub fn new(message_id: Uuid, s: &AnswerScore) -> Self {
        Self {
            message_id,
            composite_score: s.composite_score,
            summary: s.summary.clone(),
            categories: Categories {
                technical: s.technical,
                communication: s.communication,
                problem_solving: s.problem_solving,
                cultural_fit: s.cultural_fit,
            },
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ToSchema, Default)]
pub struct Categories {
    pub technical: f64,
    pub communication: f64,
    pub problem_solving: f64,
    pub cultural_fit: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ToSchema)]
pub struct Highlight {
    pub question: String,
    pub highlight: String,
}

/// The full report (GET …/report).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ToSchema)]
pub struct Report {
    pub session_id: Uuid,
    pub candidate_name: String,
    pub job_title: String,
    pub overall_score: f64,
    /// A, B, C, D or F.
    pub grade: String,
    /// strong_hire, hire, consider or no_hire.
    pub recommendation: String,
    pub recommendation_label: String,
    pub scores: Categories,
    pub executive_summary: String,
    pub strengths: Vec<String>,
    pub improvements: Vec<String>,
    pub strengths_analysis: Vec<String>,
    pub weaknesses_analysis: Vec<String>,
    pub technical_assessment: String,
    pub behavioral_assessment: String,
    pub demonstrated_skills: Vec<String>,
    pub skill_gaps: Vec<String>,
    pub interview_highlights: Vec<Highlight>,
    pub red_flags: Vec<String>,
    pub follow_up_questions: Vec<String>,
    pub duration_minutes: i64,
    pub questions_answered: i64,
    /// time_limit, all_questions_answered or requested.
    pub completion_reason: String,
    pub created_at: DateTime<Utc>,
}

/// The report summary of the completion response and the `interview_complete` event. The
/// hiring side (recommendation, its label, the executive summary that names it, and the
/// completion bookkeeping) is left out of what the candidate receives: see
/// [`ReportSummary::for_candidate`].
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ReportSummary {
    pub session_id: Uuid,
    pub overall_score: f64,
    pub grade: String,
    /// Omitted for the candidate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recommendation: Option<String>,
    /// Omitted for the candidate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recommendation_label: Option<String>,
    pub categories: Categories,
    /// Omitted for the candidate (it names the recommendation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub executive_summary: Option<String>,
    pub strengths: Vec<String>,
    pub improvements: Vec<String>,
    pub questions_answered: i64,
    pub duration_minutes: i64,
    /// Omitted for the candidate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completion_reason: Option<String>,
}

impl ReportSummary {
    /// What the candidate's own channels carry (their session token, the session's sockets):
    /// scores and feedback without the hiring decision.
    pub fn for_candidate(mut self) -> Self {
        self.recommendation = None;
        self.recommendation_label = None;
        self.executive_summary = None;
        self.completion_reason = None;
        self
    }
}

impl From<&Report> for ReportSummary {
    fn from(r: &Report) -> Self {
        Self {
            session_id: r.session_id,
            overall_score: r.overall_score,
            grade: r.grade.clone(),
            recommendation: Some(r.recommendation.clone()),
            recommendation_label: Some(r.recommendation_label.clone()),
            categories: r.scores.clone(),
            executive_summary: Some(r.executive_summary.clone()),
            strengths: r.strengths.clone(),
            improvements: r.improvements.clone(),
            questions_answered: r.questions_answered,
            duration_minutes: r.duration_minutes,
            completion_reason: Some(r.completion_reason.clone()),
        }
    }
}
