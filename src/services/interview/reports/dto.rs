//! Wire shapes of reports: the candidate's view of a report, and the schema of either view.

use chrono::{DateTime, Utc};
use serde::Serialize;
use switchboard_actors::interview::{Categories, Highlight, Report};
use utoipa::ToSchema;
use uuid::Uuid;

/// What the candidate's session token reads of the report: their scores and feedback, without
/// the hiring side (recommendation, red flags, follow-up questions, the executive summary that
/// names the recommendation, completion bookkeeping). The API key reads the full [`Report`].
#[derive(Debug, Serialize, ToSchema)]
pub struct CandidateReport {
    pub session_id: Uuid,
    pub candidate_name: String,
    pub job_title: String,
    pub overall_score: f64,
    /// A, B, C, D or F.
    pub grade: String,
    pub scores: Categories,
    pub strengths: Vec<String>,
    pub improvements: Vec<String>,
    pub strengths_analysis: Vec<String>,
    pub weaknesses_analysis: Vec<String>,
    pub technical_assessment: String,
    pub behavioral_assessment: String,
    pub demonstrated_skills: Vec<String>,
    pub skill_gaps: Vec<String>,
    pub interview_highlights: Vec<Highlight>,
    pub duration_minutes: i64,
    pub questions_answered: i64,
    pub created_at: DateTime<Utc>,
}

impl From<Report> for CandidateReport {
    fn from(r: Report) -> Self {
        Self {
            session_id: r.session_id,
            candidate_name: r.candidate_name,
            job_title: r.job_title,
            overall_score: r.overall_score,
            grade: r.grade,
            scores: r.scores,
            strengths: r.strengths,
            improvements: r.improvements,
            strengths_analysis: r.strengths_analysis,
            weaknesses_analysis: r.weaknesses_analysis,
            technical_assessment: r.technical_assessment,
            behavioral_assessment: r.behavioral_assessment,
            demonstrated_skills: r.demonstrated_skills,
            skill_gaps: r.skill_gaps,
            interview_highlights: r.interview_highlights,
            duration_minutes: r.duration_minutes,
            questions_answered: r.questions_answered,
            created_at: r.created_at,
        }
    }
}

/// GET …/report answers one of these, by who calls (documentation only).
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
#[expect(dead_code, reason = "an OpenAPI schema only: described, never built")]
pub enum ReportView {
    /// X-API-Key.
    Full(Report),
    /// X-Session-Token.
    Candidate(CandidateReport),
}
