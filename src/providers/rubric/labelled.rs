//! The answer sets of tests/fixtures, scored: the labelled answers of
//! interview_answers.json (shared by the calibration and one-voice tests) and the adversarial
//! answers of interview_adversarial.json, which use the labelled set's jobs.

use super::*;
use serde_json::Value;

pub struct Case {
    pub id: String,
    pub job_key: String,
    pub job: JobProfile,
    pub question: Question,
    pub answer: String,
    /// 2 strong, 1 adequate, 0 weak (adversarial answers: 0).
    pub label: u8,
    /// What an adversarial answer imitates ("keyword_list", "off_topic", …); empty for the
    /// labelled set.
    pub kind: String,
    pub score: AnswerScore,
}

const LABELLED: &str = include_str!("../../../tests/fixtures/interview_answers.json");
const ADVERSARIAL: &str = include_str!("../../../tests/fixtures/interview_adversarial.json");

fn text(v: &Value) -> Option<String> {
    v.as_str().map(str::to_owned)
}

fn load(jobs: &Value, set: &Value) -> Vec<Case> {
    set["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| {
            let j = &jobs[c["job"].as_str().expect("job")];
            let job = JobProfile {
                candidate_name: "Candidate".into(),
                job_title: text(&j["job_title"]).expect("job_title"),
                job_category: text(&j["job_category"]),
                job_description: text(&j["job_description"]),
                experience_level: text(&j["experience_level"]),
                max_questions: 4,
                time_limit_minutes: 30,
                ..Default::default()
            };
            let question = Question {
                content: text(&c["question"]).expect("question"),
                category: text(&c["category"]).expect("category"),
                suggestions: vec![],
            };
            let answer = text(&c["answer"]).expect("answer");
            let score = score(&job, &question, &answer);
            Case {
                id: text(&c["id"]).expect("id"),
                job_key: text(&c["job"]).expect("job"),
                label: match c["label"].as_str() {
                    Some("strong") => 2,
                    Some("adequate") => 1,
                    Some("weak") | None => 0,
                    other => panic!("label {other:?}"),
                },
                kind: text(&c["kind"]).unwrap_or_default(),
                job,
                question,
                answer,
                score,
            }
        })
        .collect()
}

fn labelled_json() -> Value {
    serde_json::from_str(LABELLED).expect("the labelled set is JSON")
}

pub fn cases() -> Vec<Case> {
    let v = labelled_json();
    load(&v["jobs"], &v)
}

pub fn adversarial() -> Vec<Case> {
    let set: Value = serde_json::from_str(ADVERSARIAL).expect("the adversarial set is JSON");
    load(&labelled_json()["jobs"], &set)
}
