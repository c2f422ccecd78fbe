//! Every field of the spec's interview response tables, by name and type.

use super::support::*;
use crate::helpers::body;
use serde_json::{json, Value};

const CATEGORIES: [&str; 4] = [
    "technical",
    "communication",
    "problem_solving",
    "cultural_fit",
];

fn assert_categories(v: &Value) {
    let o = v.as_object().unwrap_or_else(|| panic!("an object: {v}"));
    assert_eq!(o.len(), 4, "exactly the four categories: {v}");
    for k in CATEGORIES {
        assert!(o[k].is_number(), "{k} is a number in {v}");
    }
}

fn assert_strings(v: &Value, field: &str) {
    let a = v[field]
        .as_array()
        .unwrap_or_else(|| panic!("{field} is an array: {v}"));
    assert!(a.iter().all(Value::is_string), "{field} holds strings: {v}");
}

fn assert_iso8601(v: &Value, field: &str) {
    let s = v[field].as_str().unwrap_or_else(|| panic!("{field}: {v}"));
    chrono::DateTime::parse_from_rfc3339(s).unwrap_or_else(|e| panic!("{field} {s}: {e}"));
}

#[actix_web::test]
async fn completion_summary_and_full_report_carry_every_spec_field() {
    let app = app().await;
    let s = create(&app, json!({"max_questions": 2})).await;
    start(&app, &s).await;
    answer(&app, &s, GOOD_ANSWER).await;
    let res = post_key(
        &app,
        &format!("/api/v1/sessions/{}/complete", id(&s)),
        json!({}),
    )
    .await;
    assert_eq!(res.status(), 200);
    let done = body(res).await;
    assert_eq!(done["status"], "completed");
    assert!(done["closing_message"].is_string(), "{done}");
    let summary = &done["report"];
    for k in [
        "grade",
        "recommendation",
        "recommendation_label",
        "executive_summary",
    ] {
        assert!(summary[k].is_string(), "{k} in {summary}");
    }
    assert!(summary["overall_score"].is_number());
    assert_categories(&summary["categories"]);
    assert_strings(summary, "strengths");
    assert_strings(summary, "improvements");

    let report = body(get_key(&app, &format!("/api/v1/sessions/{}/report", id(&s))).await).await;
    assert_eq!(report["session_id"], s["id"]);
    for k in [
        "candidate_name",
        "job_title",
        "grade",
        "recommendation",
        "recommendation_label",
        "executive_summary",
        "technical_assessment",
        "behavioral_assessment",
    ] {
        assert!(report[k].is_string(), "{k} in {report}");
    }
    assert!(report["overall_score"].is_number());
    assert_categories(&report["scores"]);
    for k in [
        "strengths_analysis",
        "weaknesses_analysis",
        "demonstrated_skills",
        "skill_gaps",
        "follow_up_questions",
    ] {
        assert_strings(&report, k);
    }
    assert!(report["red_flags"].is_array());
    let highlights = report["interview_highlights"]
        .as_array()
        .expect("highlights");
    assert!(
        !highlights.is_empty(),
        "the answer gave a highlight: {report}"
    );
    for h in highlights {
        assert!(
            h["question"].is_string() && h["highlight"].is_string(),
            "{h}"
        );
    }
    for k in ["duration_minutes", "questions_answered"] {
        assert!(report[k].is_u64(), "{k} is an integer in {report}");
    }
    assert_eq!(report["questions_answered"], 1);
    assert_iso8601(&report, "created_at");
}
